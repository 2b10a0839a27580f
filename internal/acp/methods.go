package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

var _ acpsdk.Agent = (*server)(nil)
var _ acpsdk.AgentLoader = (*server)(nil)

// Initialize stores the client's capabilities for the sessions opened
// later and advertises what this front end implements.
func (s *server) Initialize(_ context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps = p.ClientCapabilities
	s.mu.Unlock()
	return acpsdk.InitializeResponse{
		ProtocolVersion: ProtocolVersion,
		AgentCapabilities: acpsdk.AgentCapabilities{
			LoadSession: true,
			SessionCapabilities: acpsdk.SessionCapabilities{
				List:   &acpsdk.SessionListCapabilities{},
				Resume: &acpsdk.SessionResumeCapabilities{},
				Close:  &acpsdk.SessionCloseCapabilities{},
				// session/new, load and resume take additional roots
				// (a multi-root workspace; docs/EDITOR_PROTOCOL.md).
				AdditionalDirectories: &acpsdk.SessionAdditionalDirectoriesCapabilities{},
				// delete: added to the result on the wire (route.go).
			},
			// Images reach a model with vision; any other model refuses
			// the prompt, naming itself (Session.PromptInput).
			PromptCapabilities: acpsdk.PromptCapabilities{EmbeddedContext: true, Image: true},
			McpCapabilities:    acpsdk.McpCapabilities{Http: true, Sse: true},
			Meta:               agentMeta(),
		},
		AgentInfo:   &acpsdk.Implementation{Name: "rx-bridge", Version: s.opts.Version},
		AuthMethods: []acpsdk.AuthMethod{setupAuthMethod()},
	}, nil
}

// authSetup is the one auth method: the client runs `rx-bridge setup` in
// a terminal (as the reference advertises `reasonix setup`), which
// configures a provider, its key and the default model.
const authSetup = "rx-bridge-setup"

func setupAuthMethod() acpsdk.AuthMethod {
	desc := locale.T("Choose a model provider, store its key and pick the default model, in a terminal")
	return acpsdk.AuthMethod{Terminal: &acpsdk.AuthMethodTerminalInline{
		Id: authSetup, Name: "rx-bridge setup", Description: &desc, Type: "terminal", Args: []string{"setup"},
	}}
}

// Authenticate is called after the client ran the terminal method: the
// plugins and config.toml are read again, so the provider and model
// setup wrote serve the next prompt (a session opened before takes the
// new default model then). Any other method id is unknown.
func (s *server) Authenticate(ctx context.Context, p acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	if p.MethodId != authSetup {
		return acpsdk.AuthenticateResponse{}, rpcError(codeInvalidParams, "authenticate: unknown methodId %s", p.MethodId)
	}
	if _, err := s.rt.Reload(ctx); err != nil {
		return acpsdk.AuthenticateResponse{}, rpcError(codeInternal, "authenticate: reading the configuration again: %v", redact.Err(err))
	}
	return acpsdk.AuthenticateResponse{}, nil
}

// cwd is a session's workspace: the client's cwd (absolute, an existing
// directory), else the --workspace. A cwd that is not is the client's
// mistake (-32602 naming it), not the agent's failure.
func (s *server) cwd(method, cwd string) (string, error) {
	if cwd == "" {
		return s.opts.Workspace, nil
	}
	if !filepath.IsAbs(cwd) {
		return "", rpcError(codeInvalidParams, "%s: cwd must be an absolute path", method)
	}
	switch st, err := os.Stat(cwd); {
	case err != nil:
		return "", rpcError(codeInvalidParams, "%s: cwd %s: %v", method, redact.String(cwd), errors.Unwrap(err))
	case !st.IsDir():
		return "", rpcError(codeInvalidParams, "%s: cwd %s is not a directory", method, redact.String(cwd))
	}
	return cwd, nil
}

// additional checks a request's additionalDirectories (ACP, unstable):
// each an absolute path of an existing directory, or the client's
// mistake (-32602 naming it).
func additional(method string, dirs []string) error {
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return rpcError(codeInvalidParams, "%s: additionalDirectories must be absolute paths", method)
		}
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return rpcError(codeInvalidParams, "%s: additional directory %s is not a directory", method, redact.String(d))
		}
	}
	return nil
}

// NewSession starts an agent session in the client's cwd on the
// --model (else the workspace's or config's); the command list follows
// the result.
func (s *server) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	cwd, err := s.cwd("session/new", p.Cwd)
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	if err := additional("session/new", p.AdditionalDirectories); err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	servers, err := mcpServers(p.McpServers, cwd)
	if err != nil {
		return acpsdk.NewSessionResponse{}, rpcError(codeInvalidParams, "session/new: %v", err)
	}
	// The plugins' session.start surfaces are held until the client
	// knows the session from this response.
	s.beginOpen()
	as, err := s.agent.New(ctx, cwd, s.opts.Model, p.AdditionalDirectories...)
	if err != nil {
		s.endOpen("")
		return acpsdk.NewSessionResponse{}, rpcError(codeInternal, "session/new: %v", err)
	}
	ss := s.register(ctx, as, servers)
	id := as.ID()
	s.out.after(func() { ss.notices.open(); s.endOpen(id); s.advertise(id) }, `"sessionId":"`+id+`"`)
	models, opts := s.configState(as)
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(id), Models: models, Modes: modeState(as), ConfigOptions: opts}, nil
}

// register keeps as as an open session and starts the client's MCP
// servers for it.
func (s *server) register(ctx context.Context, as *agent.Session, servers []mcphost.Server) *session {
	h, gate := s.startMCP(ctx, as, servers)
	ss := &session{s: as, mcp: h, notices: gate}
	s.mu.Lock()
	s.sessions[as.ID()] = ss
	s.mu.Unlock()
	return ss
}

// validID is what a stored session id may look like (the reference's
// rule: no path separators, no "." or "..").
var validID = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

func checkID(method string, id acpsdk.SessionId) error {
	switch v := string(id); {
	case v == "":
		return rpcError(codeInvalidParams, "%s: missing sessionId", method)
	case v == "." || v == ".." || strings.TrimSpace(v) != v || !validID.MatchString(v):
		return rpcError(codeInvalidParams, "%s: invalid sessionId", method)
	}
	return nil
}

// open loads stored session id; replay says whether its history is sent
// as session/update notifications (load) or not (resume: only what the
// load itself says, such as a stored model that fell back). Its settings
// (model, effort, tool approval, mode) are the stored ones; its other
// workspace roots are dirs (ACP's additionalDirectories: the complete
// list, none when empty). A session open in this connection is closed
// and loaded again.
func (s *server) open(ctx context.Context, method string, id acpsdk.SessionId, replay bool, mcps []acpsdk.McpServer, dirs []string) (*session, error) {
	if err := checkID(method, id); err != nil {
		return nil, err
	}
	if err := additional(method, dirs); err != nil {
		return nil, err
	}
	if ss, ok := s.session(id); ok {
		s.forget(string(id))
		if err := ss.close(ctx); err != nil {
			s.log.Warn(redact.String(err.Error()))
		}
	}
	// Updates before a load's or resume's result are the norm: held
	// surfaces go to the session as soon as it is registered.
	s.beginOpen()
	opened := ""
	defer func() { s.endOpen(opened) }()
	load := s.agent.Resume
	if replay {
		load = s.agent.Load
		s.mu.Lock()
		s.replaying[string(id)] = true
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.replaying, string(id))
			s.mu.Unlock()
		}()
	}
	as, err := load(ctx, string(id))
	if errors.Is(err, agent.ErrNoSession) {
		return nil, rpcError(codeInvalidParams, "%s: unknown session %s", method, id)
	}
	if err != nil {
		return nil, agentError(method, err)
	}
	servers, err := mcpServers(mcps, as.Workspace())
	if err != nil {
		_ = as.Close(ctx)
		return nil, rpcError(codeInvalidParams, "%s: %v", method, err)
	}
	if err := as.SetRoots(dirs); err != nil {
		_ = as.Close(ctx)
		return nil, rpcError(codeInvalidParams, "%s: %v", method, err)
	}
	ss := s.register(ctx, as, servers)
	// load and resume: updates before the result are the norm (replay).
	ss.notices.open()
	opened = ss.s.ID()
	return ss, nil
}

// LoadSession replays a stored session (this front end's or the LSP
// bridge's: they share the transcripts) before its result; the command
// list follows the replay.
func (s *server) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	ss, err := s.open(ctx, "session/load", p.SessionId, true, p.McpServers, p.AdditionalDirectories)
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	s.advertiseAfter(ss.s.ID())
	models, opts := s.configState(ss.s)
	return acpsdk.LoadSessionResponse{Models: models, Modes: modeState(ss.s), ConfigOptions: opts, Meta: openedMeta(ss.s.ID())}, nil
}

// ResumeSession opens a stored session without replaying it.
func (s *server) ResumeSession(ctx context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	ss, err := s.open(ctx, "session/resume", p.SessionId, false, p.McpServers, p.AdditionalDirectories)
	if err != nil {
		return acpsdk.ResumeSessionResponse{}, err
	}
	s.advertiseAfter(ss.s.ID())
	models, opts := s.configState(ss.s)
	return acpsdk.ResumeSessionResponse{Models: models, Modes: modeState(ss.s), ConfigOptions: opts, Meta: openedMeta(ss.s.ID())}, nil
}

// ListSessions lists the home's stored sessions (of cwd when given),
// newest first.
func (s *server) ListSessions(_ context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	if p.Cursor != nil {
		return acpsdk.ListSessionsResponse{}, rpcError(codeInvalidParams, "session/list: unsupported cursor")
	}
	ws := ""
	if p.Cwd != nil {
		if !filepath.IsAbs(*p.Cwd) {
			return acpsdk.ListSessionsResponse{}, rpcError(codeInvalidParams, "session/list: cwd must be an absolute path")
		}
		ws = *p.Cwd
	}
	if err := additional("session/list", p.AdditionalDirectories); err != nil {
		return acpsdk.ListSessionsResponse{}, err
	}
	// The filter is compared with the roots as sessions record them
	// (symlinks resolved).
	var only []string
	for _, d := range p.AdditionalDirectories {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			real = d
		}
		only = append(only, real)
	}
	infos, err := s.agent.List(ws)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, rpcError(codeInternal, "session/list: %v", err)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, in := range infos {
		if len(only) > 0 && !slices.Equal(only, in.Roots) {
			continue
		}
		si := acpsdk.SessionInfo{SessionId: acpsdk.SessionId(in.ID), Cwd: in.Workspace, AdditionalDirectories: in.Roots}
		if in.Title != "" {
			si.Title = acpsdk.Ptr(in.Title)
		}
		if !in.Updated.IsZero() {
			si.UpdatedAt = acpsdk.Ptr(in.Updated.UTC().Format(time.RFC3339Nano))
		}
		out.Sessions = append(out.Sessions, si)
	}
	return out, nil
}

func (s *server) forget(id string) {
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
}

// closeRead announces to the agent the session/close the router just
// read, with params: a load or delete of its session read after it waits
// for it, whichever handler the SDK starts first.
func (s *server) closeRead(params []byte) {
	id := closedID(params)
	if id == "" {
		return
	}
	end := s.agent.Closing(id)
	s.mu.Lock()
	s.closes[id] = append(s.closes[id], end)
	s.mu.Unlock()
}

// closeServed ends an announcement of closeRead once the handler of a
// session/close of session id is done.
func (s *server) closeServed(id string) {
	s.mu.Lock()
	ends := s.closes[id]
	var end func()
	if len(ends) > 0 {
		end, s.closes[id] = ends[0], ends[1:]
		if len(s.closes[id]) == 0 {
			delete(s.closes, id)
		}
	}
	s.mu.Unlock()
	if end != nil {
		end()
	}
}

// closedID is the sessionId of session/close params, as the SDK decodes
// them ("" for none).
func closedID(params []byte) string {
	var p acpsdk.CloseSessionRequest
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	return string(p.SessionId)
}

// CloseSession cancels the session's turn, waits for it and closes the
// session; an unknown id is fine.
func (s *server) CloseSession(ctx context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	ss, ok := s.session(p.SessionId)
	if !ok {
		return acpsdk.CloseSessionResponse{}, nil
	}
	s.forget(string(p.SessionId))
	if err := ss.close(ctx); err != nil {
		return acpsdk.CloseSessionResponse{}, rpcError(codeInternal, "session/close: %v", err)
	}
	return acpsdk.CloseSessionResponse{}, nil
}

// Cancel stops the session's running turn; unknown ids are ignored.
func (s *server) Cancel(_ context.Context, p acpsdk.CancelNotification) error {
	if ss, ok := s.session(p.SessionId); ok {
		ss.s.Cancel()
	}
	return nil
}

// advertise sends the session's available_commands_update: the running
// generation's plugin UI actions and slash commands, and the prompts of
// the session's own MCP servers (commandsFor); a list the session was
// last sent is not sent again.
func (s *server) advertise(id string) { s.sendCommands(id, false) }

// sendCommands sends session id's command list if it changed; refresh
// sends nothing before the list that follows the session's opening
// response (the client does not know the session before it).
func (s *server) sendCommands(id string, refresh bool) {
	ss, ok := s.session(acpsdk.SessionId(id))
	if !ok {
		return
	}
	ss.advertMu.Lock()
	defer ss.advertMu.Unlock()
	if refresh && !ss.opened {
		return
	}
	ss.opened = true
	cmds := s.commandsFor(id)
	b, _ := json.Marshal(cmds)
	if len(cmds) == 0 || string(b) == ss.advertised {
		return
	}
	ss.advertised = string(b)
	s.send(id, acpsdk.SessionUpdate{AvailableCommandsUpdate: &acpsdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}})
}
