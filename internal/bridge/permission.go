package bridge

import (
	"context"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// The answers of rx/session/requestPermission: allow this call, allow
// the tool for the rest of the session, deny.
const (
	optAllow        = "allow"
	optAllowSession = "allow_session"
	optDeny         = "deny"
)

var permissionOptions = []rxproto.PermissionOption{
	{OptionID: optAllow, Name: "Allow once", Kind: "allow_once"},
	{OptionID: optAllowSession, Name: "Allow for this session", Kind: "allow_always"},
	{OptionID: optDeny, Name: "Deny", Kind: "reject_once"},
}

// grants are the tools the user allowed for the rest of a session
// ("Allow for this session"); nothing is persisted, a new connection
// asks again.
type grants struct {
	mu    sync.Mutex
	tools map[string]map[string]bool // session id → tool names
}

func (g *grants) grant(session, tool string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tools == nil {
		g.tools = map[string]map[string]bool{}
	}
	if g.tools[session] == nil {
		g.tools[session] = map[string]bool{}
	}
	g.tools[session][tool] = true
}

func (g *grants) granted(session, tool string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tools[session][tool]
}

// forget drops a closed or deleted session's grants.
func (g *grants) forget(session string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.tools, session)
}

// RequestPermission asks the editor whether a tool call may run: with
// rx/session/requestPermission where the editor consumes session updates
// (Allow once, Allow for this session, Deny; a tool allowed for the
// session is not asked about again), else with Allow / Deny buttons. A
// dismissed question is a deny; a turn being cancelled withdraws it.
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
	if s.grants.granted(req.SessionID, tc.Name) {
		return agent.PermissionAllow, nil
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
	if res.Outcome.Outcome != "selected" {
		return agent.PermissionDeny, nil
	}
	switch res.Outcome.OptionID {
	case optAllow:
		return agent.PermissionAllow, nil
	case optAllowSession:
		s.grants.grant(req.SessionID, tc.Name)
		return agent.PermissionAllow, nil
	}
	return agent.PermissionDeny, nil
}
