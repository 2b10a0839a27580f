package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Response is a whole completion, for callers that do not stream.
type Response struct {
	Text      string
	Reasoning string
	// ReasoningSignature is the last signature a reasoning chunk carried:
	// providers that sign their reasoning send it once, at the end.
	ReasoningSignature string
	// ToolCalls are the complete calls, in the order the provider finished
	// them.
	ToolCalls []extproto.ProviderToolCall
	// Usage is the last usage the provider reported, nil if none.
	Usage *extproto.ProviderUsage
	// Done is set once the provider sent `done`.
	Done bool
}

// Assembler folds a chunk sequence into a Response. The zero value is ready
// to use.
type Assembler struct {
	text, reasoning strings.Builder
	resp            Response
	callIDs         map[string]bool
}

// Add folds one chunk in. It fails on a chunk after `done`, a malformed
// tool call or usage, and on an `error` chunk, which it returns as the
// *extproto.Error its code names.
func (a *Assembler) Add(ch extproto.ProviderChunk) error {
	if a.resp.Done {
		return fmt.Errorf("provider sent a %q chunk after done", ch.Type)
	}
	switch ch.Type {
	case extproto.ChunkText:
		a.text.WriteString(ch.Text)
	case extproto.ChunkReasoning:
		a.reasoning.WriteString(ch.Text)
		if ch.Signature != "" {
			a.resp.ReasoningSignature = ch.Signature
		}
	case extproto.ChunkToolCallStart, extproto.ChunkToolCallArgsDelta:
		// Progress only: the final tool_call chunk carries the whole call.
	case extproto.ChunkToolCall:
		tc := ch.ToolCall
		if tc == nil || tc.ID == "" || tc.Name == "" {
			return errors.New("provider sent a tool_call chunk without a call id and name")
		}
		if a.callIDs[tc.ID] {
			return fmt.Errorf("provider sent tool call %q twice", tc.ID)
		}
		if a.callIDs == nil {
			a.callIDs = map[string]bool{}
		}
		a.callIDs[tc.ID] = true
		a.resp.ToolCalls = append(a.resp.ToolCalls, *tc)
	case extproto.ChunkUsage:
		if ch.Usage == nil {
			return errors.New("provider sent a usage chunk without usage")
		}
		u := *ch.Usage
		a.resp.Usage = &u
	case extproto.ChunkDone:
		a.resp.Done = true
	case extproto.ChunkError:
		return chunkError(ch.Error)
	default:
		return fmt.Errorf("provider sent a chunk of unknown type %q", ch.Type)
	}
	return nil
}

// chunkError converts an `error` chunk into the error its code names. A
// malformed error chunk is still a failure, never silence.
func chunkError(pe *extproto.ProviderError) error {
	if pe == nil {
		return extproto.NewError(extproto.ReasonProviderFailed, "provider sent an error chunk without an error")
	}
	reason := extproto.ReasonProviderFailed
	if pe.Code == extproto.ProviderCodeInterrupted {
		reason = extproto.ReasonProviderInterrupted
	}
	return extproto.NewError(reason, pe.Message)
}

// Response returns what has been assembled so far.
func (a *Assembler) Response() Response {
	r := a.resp
	r.Text = a.text.String()
	r.Reasoning = a.reasoning.String()
	r.ToolCalls = append([]extproto.ProviderToolCall(nil), a.resp.ToolCalls...)
	return r
}

// Collect reads s to its end and returns the assembled response: Drain
// without a context or a consumer.
func Collect(s Stream) (Response, error) {
	return Drain(context.Background(), s, nil)
}

// ErrNoDone is the ending of a stream that ended without `done`.
var ErrNoDone = extproto.NewError(extproto.ReasonProviderInterrupted, "the provider stream ended without done")

// Drain reads s to its end, folds every chunk into the response and hands
// each chunk that folded cleanly to each (nil: none) as it arrives. It
// closes s. Every front end that consumes a stream (the agent, rx/lm/chat,
// `complete`) drains it here, so an ending means one thing everywhere:
//
//   - `done`, then the end: the response and nil;
//   - the end without `done`: ErrNoDone (provider_interrupted);
//   - an `error` chunk: the error its code names (provider_failed or
//     provider_interrupted); the chunk is not handed to each;
//   - a failure of the stream (a sidecar crash, a gap in the chunk
//     sequence, an HTTP failure): that error, even when its chain reaches
//     io.EOF, as a crashed sidecar's does;
//   - ctx ended (the consumer cancelled): ctx's error, and no chunk is
//     handed to each after it;
//   - each's error: that error, and the stream is abandoned.
//
// On any failure what arrived before is returned with the error.
func Drain(ctx context.Context, s Stream, each func(extproto.ProviderChunk) error) (Response, error) {
	defer s.Close()
	var a Assembler
	for {
		ch, err := s.Next()
		if ctx.Err() != nil {
			return a.Response(), ctx.Err()
		}
		if err != nil {
			if errors.Is(err, io.EOF) && extproto.ReasonOf(err) == "" {
				if !a.resp.Done {
					return a.Response(), ErrNoDone
				}
				return a.Response(), nil
			}
			return a.Response(), err
		}
		if err := a.Add(ch); err != nil {
			return a.Response(), err
		}
		if each != nil {
			if err := each(ch); err != nil {
				return a.Response(), err
			}
		}
	}
}
