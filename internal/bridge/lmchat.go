package bridge

import (
	"context"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// lmChat serves rx/lm/chat: one raw streamed completion, no hook points.
// Chunks go out as rx/lm/chunk to editors that consume them; after a
// cancellation none follows.
func (s *Server) lmChat(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.LmChatParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Model == "" {
		return nil, invalidParams("rx/lm/chat needs a model")
	}
	if p.Messages == nil {
		p.Messages = []extproto.ProviderMessage{}
	}
	if p.Tools == nil {
		p.Tools = []extproto.ProviderToolSchema{}
	}
	snap, release := s.rt.set.Acquire()
	defer release()
	cat := snap.Catalog
	if _, err := cat.Lookup(p.Model); err != nil {
		return nil, err
	}
	body := extproto.ProviderRequest{MaxTokens: int(p.MaxTokens), Messages: p.Messages, Tools: p.Tools}
	if err := body.Validate(); err != nil {
		return nil, invalidParams("rx/lm/chat: %v", err)
	}
	st, err := cat.Open(ctx, p.Model, p.Effort, body)
	if err != nil {
		return nil, s.lmError(ctx, err)
	}
	var each func(extproto.ProviderChunk) error
	if s.client.lmChat() {
		each = func(ch extproto.ProviderChunk) error {
			s.notify(rxproto.MethodLMChunk, rxproto.LmChunk{RequestID: p.RequestID, Chunk: ch})
			return nil
		}
	}
	r, err := providers.Drain(ctx, st, each)
	if err != nil {
		return nil, s.lmError(ctx, err)
	}
	out := rxproto.LmChatResult{Text: r.Text, Reasoning: r.Reasoning, ToolCalls: r.ToolCalls}
	if out.ToolCalls == nil {
		out.ToolCalls = []extproto.ProviderToolCall{}
	}
	if r.Usage != nil {
		out.Usage = *r.Usage
		out.FinishReason = r.Usage.FinishReason
	}
	if out.FinishReason == "" {
		out.FinishReason = "stop"
	}
	return out, nil
}

// lmError keeps a cancellation a cancellation, and makes every provider
// failure a -32000 with its reason and the redacted message.
func (s *Server) lmError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if extproto.ReasonOf(err) == "" {
		err = extproto.NewError(extproto.ReasonProviderFailed, redact.String(err.Error()))
	}
	return err
}
