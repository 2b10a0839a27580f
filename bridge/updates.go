package bridge

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/agent"
)

// sessionUpdate is rx/session/update (EDITOR_PROTOCOL.md §5.1).
type sessionUpdate struct {
	SessionID string `json:"sessionId"`
	Update    any    `json:"update"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type chunkUpdate struct {
	Kind    agent.UpdateKind `json:"sessionUpdate"`
	Content textContent      `json:"content"`
}

type toolCallUpdate struct {
	Kind       string          `json:"sessionUpdate"`
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title,omitempty"`
	ToolKind   string          `json:"kind,omitempty"`
	Status     string          `json:"status"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	Content    []toolContent   `json:"content,omitempty"`
}

type toolContent struct {
	Type    string      `json:"type"`
	Content textContent `json:"content"`
}

type usageUpdate struct {
	Kind  string `json:"sessionUpdate"`
	Usage any    `json:"usage"`
}

type noticeUpdate struct {
	Kind     string `json:"sessionUpdate"`
	Severity string `json:"severity"`
	Text     string `json:"text"`
}

type permissionUpdate struct {
	Kind       string `json:"sessionUpdate"`
	ToolCallID string `json:"toolCallId"`
	Outcome    string `json:"outcome"`
	By         string `json:"by"`
}

// wireUpdate maps an agent update to its rx/session/update body; nil for
// kinds that are not sent (a turn's end is the prompt's result).
func wireUpdate(u agent.Update) any {
	switch u.Kind {
	case agent.UpdateUserMessage, agent.UpdateAgentMessage, agent.UpdateAgentThought:
		return chunkUpdate{Kind: u.Kind, Content: textContent{Type: "text", Text: u.Text}}
	case agent.UpdateToolCall:
		tc := u.ToolCall
		return toolCallUpdate{Kind: "tool_call", ToolCallID: tc.ID, Title: title(*tc), ToolKind: toolKind(*tc), Status: string(tc.Status), RawInput: rawInput(tc.Arguments)}
	case agent.UpdateToolCallUpdate:
		tc := u.ToolCall
		out := toolCallUpdate{Kind: "tool_call_update", ToolCallID: tc.ID, Status: string(tc.Status)}
		if tc.Output != "" {
			out.Content = []toolContent{{Type: "content", Content: textContent{Type: "text", Text: tc.Output}}}
		}
		return out
	case agent.UpdateUsage:
		if u.Usage != nil {
			return usageUpdate{Kind: "usage", Usage: u.Usage}
		}
	case agent.UpdateNotice:
		if n := u.Notice; n != nil {
			return noticeUpdate{Kind: "notice", Severity: noticeSeverity(n.Kind), Text: n.Text}
		}
	case agent.UpdatePermissionOutcome:
		if p := u.Permission; p != nil {
			return permissionUpdate{Kind: "permission", ToolCallID: p.ToolCallID, Outcome: outcomeWord(p.Outcome), By: decidedBy(*p)}
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

func toolKind(tc agent.ToolCall) string {
	switch k := string(tc.Kind); k {
	case "read", "edit", "search", "execute":
		return k
	}
	return "other"
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

func noticeSeverity(k agent.NoticeKind) string {
	switch k {
	case agent.NoticeWarning, agent.NoticeAudit, agent.NoticeBlocked:
		return "warn"
	case agent.NoticeInterrupted:
		return "error"
	}
	return "info"
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
	}
	return "host"
}
