package providers

import (
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

// Collect reads s to its end, closes it and returns the assembled response.
// On failure it returns what arrived before the error alongside it. A
// stream that ends without `done` is interrupted.
func Collect(s Stream) (Response, error) {
	defer s.Close()
	var a Assembler
	for {
		ch, err := s.Next()
		if errors.Is(err, io.EOF) {
			if !a.resp.Done {
				return a.Response(), extproto.NewError(extproto.ReasonProviderInterrupted, "provider stream ended without done")
			}
			return a.Response(), nil
		}
		if err != nil {
			return a.Response(), err
		}
		if err := a.Add(ch); err != nil {
			return a.Response(), err
		}
	}
}
