package bridge

import (
	"context"
	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/agent"
	"github.com/rx-bridge/rx-bridge/bridge/rxproto"
)

var permissionOptions = []rxproto.PermissionOption{
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
	p := rxproto.PermissionRequest{SessionID: req.SessionID, Options: permissionOptions,
		ToolCall: rxproto.PermissionToolCall{ToolCallID: tc.Key, Title: title(tc), Kind: toolKind(tc), RawInput: rawInput(tc.Arguments)}}
	var res rxproto.PermissionResult
	err := s.call(ctx, rxproto.MethodSessionRequestPermission, p, &res)
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
