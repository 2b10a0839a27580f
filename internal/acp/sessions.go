package acp

import (
	"context"
	"errors"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// deleteSession ends the session if it is open here (its turn cancelled
// and waited for, its MCP servers stopped) and removes its transcript,
// which both front ends list: nothing of it is written afterwards. As
// the reference's, it is idempotent: an id with no stored session is
// fine.
func (s *server) deleteSession(ctx context.Context, p deleteRequest) (any, error) {
	const method = "session/delete"
	if err := checkID(method, p.SessionId); err != nil {
		return nil, err
	}
	id := string(p.SessionId)
	ctx = context.WithoutCancel(ctx)
	if ss, ok := s.session(p.SessionId); ok {
		s.forget(id)
		if err := ss.close(ctx); err != nil {
			s.log.Warn(redact.String(err.Error()))
		}
	}
	err := s.agent.Delete(ctx, id)
	switch {
	case err == nil, errors.Is(err, agent.ErrNoSession):
		return struct{}{}, nil
	case errors.Is(err, transcript.ErrLocked):
		return nil, rpcError(codeInvalidRequest, "%s: session %s is open in another rx-bridge process; close it there first", method, id)
	}
	return nil, rpcError(codeInternal, "%s: %v", method, err)
}

// The session modes: the agent's (normal, plan) and the reference's
// legacy ids, which set the tool approval as well.
const (
	modeDefault = "default" // normal + tool approval ask
	modeAuto    = "auto"    // normal + tool approval yolo
)

// availableModes are the modes a session offers, named in the process's
// language. The reference's goal mode is not among them: the agent has
// no goals.
func availableModes() []acpsdk.SessionMode {
	return []acpsdk.SessionMode{
		{Id: acpsdk.SessionModeId(agent.ModeNormal), Name: locale.T("Normal"),
			Description: acpsdk.Ptr(locale.T("Read, search, edit files and run commands, as the tool approval allows"))},
		{Id: acpsdk.SessionModeId(agent.ModePlan), Name: locale.T("Plan"),
			Description: acpsdk.Ptr(locale.T("Read, search and plan: edits and commands are refused until the mode returns to normal"))},
	}
}

// modeState is a session's modes with its current one.
func modeState(as *agent.Session) *acpsdk.SessionModeState {
	return &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(as.Mode()), AvailableModes: availableModes()}
}

// SetSessionMode switches a session between normal and plan mode; the
// legacy default and auto are normal with the tool approval ask or yolo
// (config_option_update follows). A change of mode sends
// current_mode_update.
func (s *server) SetSessionMode(_ context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	const method = "session/set_mode"
	ss, ok := s.session(p.SessionId)
	if !ok {
		return acpsdk.SetSessionModeResponse{}, rpcError(codeInvalidParams, "%s: unknown session %s", method, p.SessionId)
	}
	mode, approval := agent.Mode(p.ModeId), agent.Approval("")
	switch p.ModeId {
	case acpsdk.SessionModeId(agent.ModeNormal), acpsdk.SessionModeId(agent.ModePlan):
	case modeDefault:
		mode, approval = agent.ModeNormal, agent.ApproveAsk
	case modeAuto:
		mode, approval = agent.ModeNormal, agent.ApproveYolo
	default:
		return acpsdk.SetSessionModeResponse{}, rpcError(codeInvalidParams, "%s: unknown modeId %s", method, p.ModeId)
	}
	before := ss.s.Mode()
	if err := ss.s.SetMode(mode); err != nil {
		return acpsdk.SetSessionModeResponse{}, agentError(method, err)
	}
	id := ss.s.ID()
	if approval != "" {
		if err := ss.s.SetApproval(approval); err != nil {
			return acpsdk.SetSessionModeResponse{}, agentError(method, err)
		}
	}
	if approval != "" || mode != before {
		// The mode is a config option too.
		_, opts := s.configState(ss.s)
		s.send(id, acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
	}
	if mode != before {
		s.send(id, acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(mode)}})
	}
	return acpsdk.SetSessionModeResponse{}, nil
}

// noteUsage keeps the provider's usage of a session's last round, for
// the usage_update at the end of the turn.
func (ss *session) noteUsage(u extproto.ProviderUsage) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.lastUsage = &u
}

// usageUpdatesWanted reads whether the client asked for usage_update:
// clientCapabilities._meta["rx-bridge"].usageUpdate is true. The update
// is UNSTABLE in ACP (not part of the spec, no capability announces it),
// and clients built on a schema before it (the TypeScript SDK up to 0.13,
// Zed's @zed-industries/agent-client-protocol 0.4.5) reject every one
// as "Invalid params"; the reference sends none. So it is sent only to
// a client that says it reads it; every client gets the turn's tokens in
// the session/prompt result's usage.
func usageUpdatesWanted(caps acpsdk.ClientCapabilities) bool {
	ns, _ := caps.Meta[usageMetaNamespace].(map[string]any)
	on, _ := ns["usageUpdate"].(bool)
	return on
}

// usageMetaNamespace is the _meta key under which a client opts in to
// usage_update.
const usageMetaNamespace = "rx-bridge"

// reportUsage sends usage_update at the end of a turn whose provider
// reported usage: used is the tokens in the context after the turn (the
// last round's prompt and completion), size the model's context window.
// A model whose window the catalog does not know gets no usage_update:
// size is required, and a guessed one would show the client a fill
// level that is not true (the prompt result's usage still has the
// counts).
func (s *server) reportUsage(ss *session) {
	ss.mu.Lock()
	u := ss.lastUsage
	ss.lastUsage = nil
	ss.mu.Unlock()
	if u == nil {
		return
	}
	used := u.PromptTokens + u.CompletionTokens
	if used == 0 {
		used = u.TotalTokens
	}
	size := s.contextWindow(ss.s.Model())
	if used <= 0 || size <= 0 || !usageUpdatesWanted(s.clientCaps()) {
		return
	}
	s.send(ss.s.ID(), acpsdk.SessionUpdate{UsageUpdate: &acpsdk.SessionUsageUpdate{Used: used, Size: size}})
}

// contextWindow is model ref's context window in tokens (0 when the
// catalog does not know it).
func (s *server) contextWindow(ref string) int {
	snap, release := s.rt.Acquire()
	defer release()
	m, err := snap.Catalog.Lookup(ref)
	if err != nil {
		return 0
	}
	return m.Descriptor.ContextWindow
}

// observeUsage follows a live session's rounds and turns for
// usage_update (replayed updates are history, not news).
func (s *server) observeUsage(id string, u agent.Update, replay bool) {
	if replay || u.Subagent != nil {
		return
	}
	switch u.Kind {
	case agent.UpdateUsage, agent.UpdateTurnEnd:
	default:
		return
	}
	ss, ok := s.session(acpsdk.SessionId(id))
	if !ok {
		return
	}
	if u.Kind == agent.UpdateUsage {
		if u.Usage != nil {
			ss.noteUsage(*u.Usage)
		}
		return
	}
	s.reportUsage(ss)
}
