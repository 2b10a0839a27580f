package bridge

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/agent"
)

// permissionParams is rx/session/requestPermission (EDITOR_PROTOCOL.md §5.2).
type permissionParams struct {
	SessionID string             `json:"sessionId"`
	ToolCall  permissionToolCall `json:"toolCall"`
	Options   []permissionOption `json:"options"`
}

type permissionToolCall struct {
	ToolCallID string          `json:"toolCallId"`
	Title      string          `json:"title"`
	Kind       string          `json:"kind"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
}

type permissionOption struct {
	OptionID string `json:"optionId"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
}

type permissionResult struct {
	Outcome struct {
		Outcome  string `json:"outcome"`
		OptionID string `json:"optionId"`
	} `json:"outcome"`
}

var permissionOptions = []permissionOption{
	{OptionID: "allow", Name: "Allow", Kind: "allow_once"},
	{OptionID: "deny", Name: "Deny", Kind: "reject_once"},
}

// RequestPermission asks the editor whether a tool call may run: with
// rx/session/requestPermission where the editor consumes session updates,
// else with Allow / Deny buttons. A dismissed question is a deny; a turn
// being cancelled withdraws it.
func (e *agentEditor) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	s := e.s
	tc := req.ToolCall
	if !s.client.sessionUpdates() {
		i, ok, err := s.chooseMessage(ctx, protocol.MessageTypeWarning, "Reasonix wants to run "+title(tc), []string{"Allow", "Deny"})
		if ctx.Err() != nil {
			return agent.PermissionCancelled, nil
		}
		if err != nil {
			return "", err
		}
		if ok && i == 0 {
			return agent.PermissionAllow, nil
		}
		return agent.PermissionDeny, nil
	}
	p := permissionParams{SessionID: req.SessionID, Options: permissionOptions,
		ToolCall: permissionToolCall{ToolCallID: tc.ID, Title: title(tc), Kind: toolKind(tc), RawInput: rawInput(tc.Arguments)}}
	var res permissionResult
	err := s.call(ctx, "rx/session/requestPermission", p, &res)
	if ctx.Err() != nil {
		return agent.PermissionCancelled, nil
	}
	if err != nil {
		return "", err
	}
	if res.Outcome.Outcome == "selected" && res.Outcome.OptionID == "allow" {
		return agent.PermissionAllow, nil
	}
	return agent.PermissionDeny, nil
}
