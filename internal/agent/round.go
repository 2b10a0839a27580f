package agent

import (
	"context"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// round is one provider round: context.prepare, provider.request, the
// stream, provider.response. It records the (possibly replaced) response
// and returns its tool calls. A finish reason of length or a refusal
// sets the turn's stop.
func (t *turn) round(ctx context.Context, system string) ([]extproto.ProviderToolCall, error) {
	msgs := requestMessages(system, t.history(), t.model.Descriptor)
	// The replacement affects this request only, never the history.
	out, err := t.hook(ctx, &extproto.ContextPreparePayload{Messages: msgs})
	if err != nil {
		return nil, err
	}
	msgs = out.Payload.(*extproto.ContextPreparePayload).Messages
	req := &extproto.ProviderRequest{Messages: msgs, Tools: t.tools.Schemas(), MaxTokens: t.s.a.opts.MaxTokens}
	if out, err = t.hook(ctx, &extproto.ProviderRequestPayload{Request: req}); err != nil {
		return nil, err
	}
	req = out.Payload.(*extproto.ProviderRequestPayload).Request
	reported := len(t.history())

	resp, err := t.stream(ctx, *req, true)
	if err != nil {
		return nil, t.fail(ctx, fmt.Errorf("model %s: %w", t.model.Ref, err))
	}
	resp.Reasoning = t.postLLMCall(ctx, resp.Reasoning)
	out, err = t.hook(ctx, &extproto.ProviderResponsePayload{
		Text: resp.Text, Reasoning: resp.Reasoning, Signature: resp.ReasoningSignature, Calls: resp.ToolCalls, Usage: resp.Usage,
	})
	if err != nil {
		return nil, err
	}
	final := out.Payload.(*extproto.ProviderResponsePayload)
	if out.Changed && final.Text != resp.Text {
		t.notice(NoticeReplaced, extproto.ProviderResponsePt, "", locale.T("an extension replaced the response; the history keeps this text:")+"\n"+redact.String(final.Text))
	}
	// Session counters keep what the provider reported; a replaced
	// usage drives only this round's display and decisions (§6.8).
	if u := resp.Usage; u != nil {
		t.s.j.commit(&record{Type: recUsage, Usage: u})
		addUsage(&t.usage, u)
	}
	if final.Usage != nil {
		u := *final.Usage
		t.emit(Update{Kind: UpdateUsage, Usage: &u})
		if t.sub == nil {
			t.s.reported.tokens, t.s.reported.upTo = u.PromptTokens, reported
		}
	}
	if final.Text != "" || final.Reasoning != "" || len(final.Calls) > 0 {
		t.addMessage(&extproto.ProviderMessage{
			Role: extproto.RoleAssistant, Content: final.Text,
			ReasoningContent: final.Reasoning, ReasoningSignature: final.Signature, ToolCalls: final.Calls,
		})
	}
	if final.Usage != nil {
		switch final.Usage.FinishReason {
		case "length", "max_tokens":
			t.stop = StopMaxTokens
			t.openReason = "not run: the response was cut at the token limit"
		case "content_filter", "refusal":
			t.stop = StopRefusal
			t.openReason = "not run: the model refused"
		}
	}
	return final.Calls, nil
}

// stream opens the turn's model and drains it (providers.Drain, which
// gives every ending its meaning), with show showing its text and
// reasoning as they arrive. The caller's cancel reaches the provider
// through ctx (for a plugin provider, as stream/cancel).
func (t *turn) stream(ctx context.Context, req extproto.ProviderRequest, show bool) (providers.Response, error) {
	left, err := fitRequest(t.model.Origin, &req)
	if err != nil {
		return providers.Response{}, err
	}
	if left > 0 {
		t.notice(NoticeWarning, "", "", locale.T("%.1f MiB of earlier messages were left out of this request to %s: a plugin provider takes at most %d MiB per request (the session's transcript keeps them)",
			float64(left)/(1<<20), t.model.Ref, extproto.FrameBytes>>20))
	}
	t.s.j.checkpoint()
	st, err := t.models.Open(ctx, t.model.Ref, t.effort, req)
	if err != nil {
		return providers.Response{}, err
	}
	var each func(extproto.ProviderChunk) error
	if show {
		each = t.show
	}
	return providers.Drain(ctx, st, each)
}

// show shows a streamed chunk of text or reasoning.
func (t *turn) show(ch extproto.ProviderChunk) error {
	switch ch.Type {
	case extproto.ChunkText:
		if ch.Text != "" {
			t.emit(Update{Kind: UpdateAgentMessage, Text: ch.Text})
		}
	case extproto.ChunkReasoning:
		if ch.Text != "" {
			t.emit(Update{Kind: UpdateAgentThought, Text: ch.Text})
		}
	}
	return nil
}
