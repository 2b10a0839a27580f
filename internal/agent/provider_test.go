package agent

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// scripted is a test provider whose streams follow a script: each Stream
// call takes the next step. It records every request and whether a
// stream saw its context end.
type scripted struct {
	models []extproto.ProviderDescriptor

	mu        sync.Mutex
	steps     []step
	reqs      []providers.Request
	cancelled int
	// started is signalled (if set) each time a stream opens.
	started chan providers.Request
}

// step is one stream: chunks, then (optionally) a hang that only the
// context ends, or a failure.
type step struct {
	chunks []extproto.ProviderChunk
	hang   bool
	fail   error
}

func newScripted(steps ...step) *scripted {
	return &scripted{
		models: []extproto.ProviderDescriptor{
			{Ref: "test/m1", Model: "m1", Tools: true, ContextWindow: 1 << 20},
			{Ref: "test/m2", Model: "m2", Tools: true},
		},
		steps: steps,
	}
}

func (p *scripted) Origin() providers.Origin              { return providers.Builtin("test") }
func (p *scripted) Models() []extproto.ProviderDescriptor { return p.models }

func (p *scripted) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	if len(p.steps) == 0 {
		p.mu.Unlock()
		return nil, extproto.NewError(extproto.ReasonProviderFailed, "script exhausted")
	}
	st := p.steps[0]
	p.steps = p.steps[1:]
	started := p.started
	p.mu.Unlock()
	if started != nil {
		started <- req
	}
	return &scriptStream{ctx: ctx, p: p, step: st}, nil
}

func (p *scripted) requests() []providers.Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]providers.Request(nil), p.reqs...)
}

func (p *scripted) push(steps ...step) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.steps = append(p.steps, steps...)
}

type scriptStream struct {
	ctx  context.Context
	p    *scripted
	step step
	i    int
}

func (s *scriptStream) Next() (extproto.ProviderChunk, error) {
	if err := s.ctx.Err(); err != nil {
		return s.interrupted(err)
	}
	if s.i < len(s.step.chunks) {
		s.i++
		return s.step.chunks[s.i-1], nil
	}
	switch {
	case s.step.hang:
		<-s.ctx.Done()
		return s.interrupted(s.ctx.Err())
	case s.step.fail != nil:
		return extproto.ProviderChunk{}, s.step.fail
	}
	return extproto.ProviderChunk{}, io.EOF
}

func (s *scriptStream) interrupted(err error) (extproto.ProviderChunk, error) {
	s.p.mu.Lock()
	s.p.cancelled++
	s.p.mu.Unlock()
	return extproto.ProviderChunk{}, extproto.Errorf(extproto.ReasonProviderInterrupted, "stream cancelled: %w", err)
}

func (s *scriptStream) Close() error { return nil }

// Chunk helpers.

func text(s string) extproto.ProviderChunk {
	return extproto.ProviderChunk{Type: extproto.ChunkText, Text: s}
}

func thought(s string) extproto.ProviderChunk {
	return extproto.ProviderChunk{Type: extproto.ChunkReasoning, Text: s}
}

func usage(prompt, completion int, finish string) extproto.ProviderChunk {
	return extproto.ProviderChunk{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: prompt + completion, FinishReason: finish}}
}

func done() extproto.ProviderChunk { return extproto.ProviderChunk{Type: extproto.ChunkDone} }

func call(id, name string, args any) extproto.ProviderChunk {
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			panic(err)
		}
		raw = string(b)
	}
	return extproto.ProviderChunk{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: id, Name: name, Arguments: raw}}
}

// answer is a step that says s and stops.
func answer(s string) step {
	return step{chunks: []extproto.ProviderChunk{text(s), usage(10, 2, "stop"), done()}}
}

// calls is a step that calls tools.
func calls(cs ...extproto.ProviderChunk) step {
	return step{chunks: append(append([]extproto.ProviderChunk{text("Let me look.")}, cs...), usage(20, 5, "tool_calls"), done())}
}
