package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// compactionGuidance is the host's instruction to the summariser, the
// last message of the summarising request. The tools are offered (the
// request continues the session's prefix), not to be called.
const compactionGuidance = "Summarise the conversation so far for the agent that will continue it: the user's goals and constraints, decisions made, files read or changed (with paths) and what was found, commands run and their outcome, and what remains to do. Be specific and brief; do not invent anything. Answer with the summary only; do not call any tool."

// Per-message cut applied when rendering history for the summariser, so
// one huge tool result cannot crowd the rest out of its request.
const summariseMessageBytes = 4000

// estimateTokens guesses the prompt size of messages: about four bytes
// per token plus a few tokens of framing per message, the usual rule of
// thumb for English text and code across tokenizers. It only has to be
// good enough to decide when to compact; the provider's own count
// replaces it whenever one was reported (see turn.promptEstimate).
func estimateTokens(msgs []extproto.ProviderMessage) int {
	n := 0
	for i := range msgs {
		m := &msgs[i]
		b := len(m.Content) + len(m.ReasoningContent) + len(m.Name) + len(m.ToolCallID)
		for _, c := range m.ToolCalls {
			b += len(c.ID) + len(c.Name) + len(c.Arguments) + 8
		}
		n += 4 + (b+3)/4
	}
	return n
}

// promptEstimate is the next request's size: the provider-reported
// prompt tokens of the last request plus an estimate of the messages
// added since, or a full estimate when there is no report (or the
// history was compacted since).
func (t *turn) promptEstimate(system string) int {
	h := t.s.st.history
	r := t.s.reported
	if r.tokens > 0 && r.upTo <= len(h) {
		return r.tokens + estimateTokens(h[r.upTo:])
	}
	tools := 0
	for _, s := range t.tools.Schemas() {
		tools += (len(s.Name) + len(s.Description) + len(s.Parameters) + 3) / 4
	}
	return estimateTokens(h) + (len(system)+3)/4 + tools
}

// compact summarises older turns when the estimated prompt passes the
// threshold of the model's context window, keeping the last KeepTurns
// turns verbatim: compaction.prepare (chain and compaction slot) may
// change what is summarised or block, which skips compaction; the model
// writes the summary; compaction.complete may change or block it before
// it replaces the older messages in the history. The summarising request
// is the host's own and does not go through provider.request/response.
func (t *turn) compact(ctx context.Context, system string) error {
	window := t.model.Descriptor.ContextWindow
	if window <= 0 {
		return nil
	}
	est := t.promptEstimate(system)
	if float64(est) < t.s.a.opts.CompactAt*float64(window) {
		return nil
	}
	h := t.s.st.history
	cut := keepFrom(h, t.s.a.opts.KeepTurns)
	if cut <= 1 {
		return nil
	}
	out, err := t.intercept(ctx, &extproto.CompactionPreparePayload{Messages: append([]extproto.ProviderMessage(nil), h[:cut]...), Guidance: compactionGuidance + t.preCompact(ctx)})
	t.notes(extproto.CompactionPrepare, out)
	if err != nil {
		return t.fail(ctx, err)
	}
	if out.Blocked {
		t.notice(NoticeBlocked, extproto.CompactionPrepare, out.BlockedBy, locale.T("extension %s blocked compaction.prepare: %s; the history is not compacted", out.BlockedBy, out.Reason))
		return nil
	}
	prep := out.Payload.(*extproto.CompactionPreparePayload)
	summary, err := t.summarise(ctx, system, prep.Messages, prep.Guidance)
	if err != nil {
		return t.fail(ctx, fmt.Errorf("compaction with model %s: %w", t.model.Ref, err))
	}
	out, err = t.intercept(ctx, &extproto.CompactionCompletePayload{Summary: summary})
	t.notes(extproto.CompactionComplete, out)
	if err != nil {
		return t.fail(ctx, err)
	}
	if out.Blocked {
		t.notice(NoticeBlocked, extproto.CompactionComplete, out.BlockedBy, locale.T("extension %s blocked compaction.complete: %s; the summary is discarded", out.BlockedBy, out.Reason))
		return nil
	}
	summary = out.Payload.(*extproto.CompactionCompletePayload).Summary
	t.s.j.commit(&record{Type: recCompaction, Compaction: &compactionRecord{Replaced: cut, Summary: summary}})
	t.s.reported.tokens = 0
	t.notice(NoticeCompaction, extproto.CompactionComplete, "", locale.T("compacted %d older messages into a summary (the prompt was about %d of %d tokens)", cut, est, window))
	return nil
}

// keepFrom returns the index of the first message of the last keep
// turns (a turn starts at a user message), so history[:cut] is what may
// be summarised.
func keepFrom(h []extproto.ProviderMessage, keep int) int {
	seen := 0
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].Role == extproto.RoleUser {
			seen++
			if seen == keep {
				return i
			}
		}
	}
	return 0
}

// summarise asks the turn's model for a summary of msgs. The request
// continues the session's own: the same system prompt and tools, msgs
// as the history is sent, the guidance as the last user message, so a
// provider's prompt cache serves all but that message (issue 32). When
// msgs are not a history a provider takes as such (a compaction.prepare
// replacement that split a tool call from its result), when that
// request would not fit the context window, or when the model answers
// it with tool calls, the model gets msgs rendered as a plain transcript
// instead (summaryRequest).
func (t *turn) summarise(ctx context.Context, system string, msgs []extproto.ProviderMessage, guidance string) (string, error) {
	if guidance == "" {
		guidance = compactionGuidance
	}
	req := extproto.ProviderRequest{
		Messages:  append(requestMessages(system, msgs, t.model.Descriptor), extproto.ProviderMessage{Role: extproto.RoleUser, Content: guidance}),
		Tools:     t.tools.Schemas(),
		MaxTokens: t.s.a.opts.MaxTokens,
	}
	if !wellFormed(msgs) || requestTokens(req) > t.model.Descriptor.ContextWindow {
		req = summaryRequest(msgs, guidance, t.s.a.opts.MaxTokens)
	}
	text, calls, err := t.summaryRound(ctx, req)
	if err == nil && calls && len(req.Tools) > 0 {
		// It went on working instead: whatever it said is no summary.
		text, _, err = t.summaryRound(ctx, summaryRequest(msgs, guidance, t.s.a.opts.MaxTokens))
	}
	if err != nil {
		return "", err
	}
	if text == "" {
		return "", fmt.Errorf("the model returned an empty summary")
	}
	return text, nil
}

// summaryRound streams one summarising request and counts its usage: it
// returns the text (blank is "") and whether the model called tools.
func (t *turn) summaryRound(ctx context.Context, req extproto.ProviderRequest) (string, bool, error) {
	resp, err := t.stream(ctx, req, false)
	if err != nil {
		return "", false, err
	}
	addUsage(&t.usage, resp.Usage)
	if resp.Usage != nil {
		t.s.j.commit(&record{Type: recUsage, Usage: resp.Usage})
	}
	text := resp.Text
	if strings.TrimSpace(text) == "" {
		text = ""
	}
	return text, len(resp.ToolCalls) > 0, nil
}

// summaryRequest is the summarising request that stands alone: the
// guidance as the system prompt, msgs rendered as a plain transcript
// with each message cut to summariseMessageBytes, no tools.
func summaryRequest(msgs []extproto.ProviderMessage, guidance string, maxTokens int) extproto.ProviderRequest {
	return extproto.ProviderRequest{
		Messages: []extproto.ProviderMessage{
			{Role: extproto.RoleSystem, Content: guidance},
			{Role: extproto.RoleUser, Content: renderForSummary(msgs)},
		},
		Tools:     []extproto.ProviderToolSchema{},
		MaxTokens: maxTokens,
	}
}

// requestTokens estimates req's prompt as promptEstimate does. The
// tokens it may answer with are not counted: the session's own requests,
// longer than this one, were sent with the same limit.
func requestTokens(req extproto.ProviderRequest) int {
	n := estimateTokens(req.Messages)
	for _, s := range req.Tools {
		n += (len(s.Name) + len(s.Description) + len(s.Parameters) + 3) / 4
	}
	return n
}

// wellFormed reports whether msgs is a history a provider accepts with
// tools: every tool message answers a call of the assistant message
// before it, and every call is answered before the next other message.
func wellFormed(msgs []extproto.ProviderMessage) bool {
	open := map[string]bool{}
	for _, m := range msgs {
		if m.Role == extproto.RoleTool {
			if !open[m.ToolCallID] {
				return false
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return false
		}
		for _, c := range m.ToolCalls {
			open[c.ID] = true
		}
	}
	return len(open) == 0
}

// renderForSummary writes messages as a plain transcript: the summariser
// needs their content, not the tool-call structure some providers only
// accept alongside tool definitions.
func renderForSummary(msgs []extproto.ProviderMessage) string {
	var b strings.Builder
	b.WriteString("Conversation to summarise:\n")
	for _, m := range msgs {
		b.WriteString("\n[")
		b.WriteString(string(m.Role))
		if m.Role == extproto.RoleTool && m.Name != "" {
			b.WriteString(" " + m.Name)
		}
		b.WriteString("]\n")
		b.WriteString(clip(m.Content, summariseMessageBytes))
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "\n(calls %s %s)", c.Name, clip(c.Arguments, summariseMessageBytes))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf(" […%d bytes cut]", len(s)-n)
}
