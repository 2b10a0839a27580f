package bridge

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// wireUpdate maps an agent update to its rx/session/update body; nil for
// kinds that are not sent (a turn's end is the prompt's result).
func wireUpdate(u agent.Update) any {
	var sub *rxproto.SubagentRef
	if r := u.Subagent; r != nil {
		sub = &rxproto.SubagentRef{ID: r.ID, Name: r.Name, ParentToolCallID: r.ParentToolCallID}
	}
	switch u.Kind {
	case agent.UpdateUserMessage, agent.UpdateAgentMessage, agent.UpdateAgentThought:
		out := rxproto.ChunkUpdate{SessionUpdate: string(u.Kind), Content: rxproto.TextContent{Type: "text", Text: u.Text}, Subagent: sub}
		for _, img := range u.Images {
			out.Images = append(out.Images, rxproto.ImageInfo{MimeType: img.MimeType, Size: int64(img.Size), Sha256: img.SHA256})
		}
		return out
	case agent.UpdateToolCall:
		tc := u.ToolCall
		return rxproto.ToolCallUpdate{SessionUpdate: "tool_call", ToolCallID: tc.Key, Title: title(*tc), Kind: toolKind(*tc), Status: rxproto.ToolStatus(tc.Status), RawInput: rawInput(tc.Arguments), Subagent: sub}
	case agent.UpdateToolCallUpdate:
		tc := u.ToolCall
		// The title again, so a client that missed the tool_call (or a
		// call answered without running) still names it.
		out := rxproto.ToolCallUpdate{SessionUpdate: "tool_call_update", ToolCallID: tc.Key, Title: title(*tc), Status: rxproto.ToolStatus(tc.Status), Subagent: sub}
		if tc.Output != "" {
			out.Content = []rxproto.ToolContent{{Type: "content", Content: rxproto.TextContent{Type: "text", Text: tc.Output}}}
		}
		return out
	case agent.UpdateUsage:
		if u.Usage != nil {
			return rxproto.UsageUpdate{SessionUpdate: "usage", Usage: *u.Usage}
		}
	case agent.UpdateNotice:
		if n := u.Notice; n != nil {
			// Plain words: a frozen reason's "(provider_interrupted)" tag
			// means nothing to the person reading it.
			return rxproto.NoticeUpdate{SessionUpdate: "notice", Severity: noticeSeverity(n.Kind), Text: extproto.PlainText(n.Text), Subagent: sub}
		}
	case agent.UpdatePermissionOutcome:
		if p := u.Permission; p != nil {
			return rxproto.PermissionUpdate{SessionUpdate: "permission", ToolCallID: p.ToolCallKey, Outcome: outcomeWord(p.Outcome), By: decidedBy(*p)}
		}
	}
	return nil
}

func title(tc agent.ToolCall) string {
	if tc.Title != "" {
		return tc.Title
	}
	return tc.Name
}

func toolKind(tc agent.ToolCall) rxproto.ToolKind {
	switch k := rxproto.ToolKind(tc.Kind); k {
	case rxproto.ToolKindRead, rxproto.ToolKindEdit, rxproto.ToolKindSearch, rxproto.ToolKindExecute:
		return k
	}
	return rxproto.ToolKindOther
}

// rawInput is the arguments as a JSON object, or nothing when they are
// not one.
func rawInput(args string) json.RawMessage {
	raw := json.RawMessage(strings.TrimSpace(args))
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		return nil
	}
	return raw
}

func noticeSeverity(k agent.NoticeKind) rxproto.Severity {
	switch k {
	case agent.NoticeWarning, agent.NoticeAudit, agent.NoticeBlocked:
		return rxproto.SeverityWarn
	case agent.NoticeInterrupted:
		return rxproto.SeverityError
	}
	return rxproto.SeverityInfo
}

func outcomeWord(o agent.PermissionOutcome) string {
	switch o {
	case agent.PermissionAllow:
		return "allowed"
	case agent.PermissionDeny:
		return "denied"
	}
	return "cancelled"
}

// decidedBy is the wire's "by": user, the plugin id, or host.
func decidedBy(p agent.Permission) string {
	switch p.DecidedBy {
	case agent.DecidedByUser:
		return "user"
	case agent.DecidedByExtension:
		return p.Plugin
	case agent.DecidedByHook:
		return "hook"
	}
	return "host"
}
