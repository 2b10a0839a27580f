package bridge

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// The answers of rx/session/requestPermission: allow this call, allow
// what the engine's grant names for the rest of the session, deny.
const (
	optAllow        = "allow"
	optAllowSession = "allow_session"
	optDeny         = "deny"
)

// permissionOptions are the options of a question: Allow once, the
// engine's grant (agent.PermissionRequest.Grant, e.g. "Allow `make` in
// the workspace root for this session") when it offers one, Deny.
func permissionOptions(req agent.PermissionRequest) []rxproto.PermissionOption {
	opts := []rxproto.PermissionOption{{OptionID: optAllow, Name: locale.T("Allow once"), Kind: "allow_once"}}
	if req.Grant != "" {
		opts = append(opts, rxproto.PermissionOption{OptionID: optAllowSession, Name: req.Grant, Kind: "allow_always"})
	}
	return append(opts, rxproto.PermissionOption{OptionID: optDeny, Name: locale.T("Deny"), Kind: "reject_once"})
}

// RequestPermission asks the editor whether a tool call may run: with
// rx/session/requestPermission where the editor consumes session updates
// (Allow once, the engine's allow-for-this-session grant when it offers
// one, Deny), else with Allow / Deny buttons. The agent session keeps
// and checks the grants; this only maps the answer. A dismissed question
// is a deny; a turn being cancelled withdraws it.
func (e *agentEditor) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	s := e.s
	tc := req.ToolCall
	if !s.client.sessionUpdates() {
		i, ok, err := s.chooseMessage(ctx, protocol.MessageTypeWarning, locale.T("Reasonix wants to run %s", title(tc)), []string{locale.T("Allow"), locale.T("Deny")})
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
	p := rxproto.PermissionRequest{SessionID: req.SessionID, Options: permissionOptions(req),
		ToolCall: rxproto.PermissionToolCall{ToolCallID: tc.Key, Title: title(tc), Kind: toolKind(tc), RawInput: rawInput(tc.Arguments)}}
	var res rxproto.PermissionResult
	err := s.call(ctx, rxproto.MethodSessionRequestPermission, p, &res)
	if ctx.Err() != nil {
		return agent.PermissionCancelled, nil
	}
	if err != nil {
		return "", err
	}
	if res.Outcome.Outcome != "selected" {
		return agent.PermissionDeny, nil
	}
	switch res.Outcome.OptionID {
	case optAllow:
		return agent.PermissionAllow, nil
	case optAllowSession:
		if req.Grant == "" {
			return agent.PermissionDeny, nil // not offered
		}
		return agent.PermissionAllowSession, nil
	}
	return agent.PermissionDeny, nil
}
