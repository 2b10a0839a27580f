package acp

import (
	"context"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// sessionKey carries the ACP session of a turn in its context, so the
// tools' document reads and edits (which know no session) go to
// fs/*_text_file with the session they belong to.
type sessionKey struct{}

func sessionOf(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// Prompt runs one turn. A "/…" line the agent resolves (command, skill,
// agent, MCP prompt) runs as typed; one naming a plugin UI action
// (/<plugin>:<action> k=v … words) runs the action, whose message is the
// turn's text (the reference's order); anything else is sent as is.
func (s *server) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	const method = "session/prompt"
	ss, ok := s.session(p.SessionId)
	if !ok {
		return acpsdk.PromptResponse{}, rpcError(codeInvalidParams, "%s: unknown session %s", method, p.SessionId)
	}
	text := flatten(p.Prompt)
	if text == "" {
		return acpsdk.PromptResponse{}, rpcError(codeInvalidParams, "%s: empty prompt", method)
	}
	id := string(p.SessionId)
	s.setFocus(id)
	ctx = exthost.OnBehalfOf(context.WithValue(ctx, sessionKey{}, id), id)
	if _, resolved := ss.s.Resolve(text); !resolved {
		if msg, ran := s.runAction(ctx, text); ran {
			text = msg
		}
	}
	res, err := ss.s.Prompt(ctx, text)
	if err != nil {
		if ctx.Err() != nil {
			return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
		}
		return acpsdk.PromptResponse{}, agentError(method, err)
	}
	return acpsdk.PromptResponse{StopReason: stopReason(res.Stop), Usage: usage(res)}, nil
}

func stopReason(r agent.StopReason) acpsdk.StopReason {
	switch r {
	case agent.StopMaxTokens, agent.StopMaxTurnRequests, agent.StopRefusal, agent.StopCancelled:
		return acpsdk.StopReason(r)
	}
	return acpsdk.StopReasonEndTurn
}

func usage(res agent.Result) *acpsdk.Usage {
	u := res.Usage
	if u.TotalTokens == 0 && u.PromptTokens == 0 && u.CompletionTokens == 0 {
		return nil
	}
	out := &acpsdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens, TotalTokens: u.TotalTokens}
	if u.CacheHitTokens > 0 {
		out.CachedReadTokens = acpsdk.Ptr(u.CacheHitTokens)
	}
	if u.ReasoningTokens > 0 {
		out.ThoughtTokens = acpsdk.Ptr(u.ReasoningTokens)
	}
	return out
}

// flatten is a prompt's text: text blocks as they are, an embedded text
// resource under a line naming it, a resource link as a line naming it
// (the model reads it with its tools); images and audio are not offered
// (promptCapabilities) and are dropped. Parts are joined with a blank
// line.
func flatten(blocks []acpsdk.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, "Resource "+r.Uri+":\n"+r.Text)
		case b.ResourceLink != nil:
			parts = append(parts, "Resource "+b.ResourceLink.Uri)
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n\n"))
}

// actionArgs parses an action line's arguments: k=v pairs, and every
// other word as arg1, arg2, … (the reference's rule).
func actionArgs(words []string) map[string]string {
	if len(words) == 0 {
		return nil
	}
	args := map[string]string{}
	n := 0
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && k != "" {
			args[k] = v
			continue
		}
		n++
		args["arg"+strconv.Itoa(n)] = w
	}
	return args
}

// runAction runs a "/<plugin>:<action> …" line as the plugin's declared
// UI action; its questions go to this session. It reports the action's
// message and whether it ran with one; a line that is no action, an
// action that fails or says nothing leaves the line to the model.
func (s *server) runAction(ctx context.Context, line string) (string, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 || !strings.HasPrefix(fields[0], "/") || !strings.Contains(fields[0], ":") {
		return "", false
	}
	snap, release := s.rt.Acquire()
	defer release()
	a, err := snap.Gen.Action(fields[0])
	if err != nil {
		return "", false
	}
	res, err := snap.Gen.RunAction(ctx, runtimeSession, a, actionArgs(fields[1:]))
	if err != nil {
		s.send(sessionOf(ctx), acpsdk.UpdateAgentMessageText("\n\n[warning] "+fields[0]+" failed: "+redact.String(err.Error())))
		return "", false
	}
	msg := strings.TrimSpace(redact.String(res.Message))
	return msg, msg != ""
}
