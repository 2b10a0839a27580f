package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// ProtocolVersion is the ACP version spoken (the schema's integer).
const ProtocolVersion = acpsdk.ProtocolVersionNumber

// runtimeSession is the session id the plugin runtime's sidecars and
// the UI hub are stamped with: one runtime serves every ACP session of
// the process.
const runtimeSession = "acp"

// Options configure Serve.
type Options struct {
	// Home is the bridge home (absolute).
	Home string
	// UserHome is the user's home for user-level package contents
	// (manifest.UserDirsHome); "" for none.
	UserHome string
	// Workspace is the workspace the sidecars are told about and the cwd
	// of a session whose client gives none (default: the process cwd).
	Workspace string
	// Model is the model of a new session (default: the workspace's,
	// else config.toml's).
	Model string
	// Version is reported as agentInfo.version.
	Version string
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
}

// server is one ACP connection: the runtime, the agent over it and the
// client's sessions.
type server struct {
	opts  Options
	log   *slog.Logger
	ctx   context.Context
	out   *frameWriter
	conn  *acpsdk.AgentSideConnection
	ready chan struct{} // closed once conn is set

	rt    *pluginrt.Set
	hub   *editorui.Hub
	agent *agent.Agent

	mu       sync.Mutex
	caps     acpsdk.ClientCapabilities
	sessions map[string]*session
	// replaying holds the sessions whose stored updates are being
	// replayed (session/load).
	replaying map[string]bool
	// focus is the session the plugins' UI goes to: the one that last
	// started a prompt or was opened (one runtime serves every session).
	focus string
	// opening counts the sessions being opened; meanwhile published
	// surfaces are held (a plugin's session.start status belongs to the
	// session starting, which the client knows only from its response),
	// and shown in the session opened when the last opening ends.
	opening int
	held    []func(id string)
	// shownText is the text each surface last showed, by session, plugin
	// and surface id (clientUI.showSurface).
	shownText map[string]string
	// closes are, by session id, the ends of the closes the router
	// announced to the agent and whose handler has not ended yet.
	closes map[string][]func()
}

// session is one ACP session: an agent session and what the client
// granted in it.
type session struct {
	s *agent.Session
	// mcp runs the MCP servers the client passed for this session (nil
	// for none); closed with the session.
	mcp     *mcphost.Host
	notices *noticeGate // the MCP host's notices to the client; nil without mcp

	mu sync.Mutex
	// lastUsage is the provider's usage of the running turn's last
	// round (nil for none yet), for usage_update.
	lastUsage *extproto.ProviderUsage

	// advertised is the command list last sent (JSON); opened says the
	// list that follows the opening response went out. Under advertMu.
	advertMu   sync.Mutex
	advertised string
	opened     bool
}

// Serve runs an ACP agent on in and out until in ends or ctx is done,
// then closes every session and the plugin runtime.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	return serve(ctx, in, out, opts, nil)
}

// serve is Serve; started, if set, gets the server once it is connected
// (tests reach the runtime through it).
func serve(ctx context.Context, in io.Reader, out io.Writer, opts Options, started func(*server)) error {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		opts.Workspace = wd
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return err
	}
	opts.Workspace = ws
	s := &server{opts: opts, log: opts.Logger, ctx: ctx, out: &frameWriter{w: out}, ready: make(chan struct{}),
		sessions: map[string]*session{}, replaying: map[string]bool{}, shownText: map[string]string{}, closes: map[string][]func(){}}
	if err := s.start(ctx); err != nil {
		return err
	}
	defer s.close()
	// The SDK starts reading at once and its logger can only be set
	// afterwards: nothing is read until it is (an input that ends at once
	// would otherwise race SetLogger).
	logged := make(chan struct{})
	s.conn = acpsdk.NewAgentSideConnection(s, s.out, &gatedReader{r: newMethodRouter(in, s.closeRead), open: logged})
	s.conn.SetLogger(s.log)
	close(logged)
	close(s.ready)
	if started != nil {
		started(s)
	}
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	return nil
}

// start opens the home's runtime with this connection as the plugins'
// UI and builds the agent over it.
func (s *server) start(ctx context.Context) error {
	var err error
	s.hub, err = editorui.NewHub(editorui.Options{Editor: &clientUI{s: s}, Redact: redact.String, SessionID: runtimeSession, Warn: func(m string) { s.log.Warn(redact.String(m)) }})
	if err != nil {
		return err
	}
	s.rt, err = pluginrt.Open(ctx, pluginrt.Options{
		Home:         s.opts.Home,
		SessionID:    runtimeSession,
		Workspace:    s.opts.Workspace,
		SystemPrompt: agent.DefaultSystemPrompt(s.opts.Workspace),
		Services: exthost.Services{
			UIRequest: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
				return s.hub.Request(ctx, sc.Plugin.ID, p)
			},
			UIPublish: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
				return s.hub.Publish(ctx, sc.Plugin.ID, p)
			},
		},
		Audit:     func(note string) { s.log.Warn("audit: " + redact.String(note)) },
		Logger:    s.log,
		UserHome:  s.opts.UserHome,
		MCPNotice: s.mcpNotice,
		OnBuild: func(context.Context) (func(*pluginrt.Snapshot, error), error) {
			return func(snap *pluginrt.Snapshot, err error) {
				if err == nil {
					s.hub.Bind(snap.ID, snap.Actions)
					go s.readvertise()
				}
			}, nil
		},
	})
	if err != nil {
		s.hub.Close()
		return err
	}
	snap := s.rt.Current()
	for _, w := range snap.Warnings {
		s.log.Warn(w)
	}
	s.hub.Bind(snap.ID, snap.Actions)
	cfg := snap.Home.Config
	a, err := agent.NewAgent(agent.Options{
		Home:           snap.Home.Dir,
		Settings:       agent.Settings{Model: cfg.Model, Approval: agent.Approval(cfg.Approval()), Steps: cfg.Steps(), ToolTimeout: cfg.ToolTimeout()},
		WorkspaceModel: manifest.WorkspaceModel,
		Runtime:        agent.Pinning(s.rt.Acquire),
		Editor:         &clientEditor{s: s},
		OnUpdate:       s.onUpdate,
		Logger:         s.log,
	})
	if err != nil {
		s.hub.Close()
		s.rt.Close()
		return err
	}
	s.mu.Lock()
	s.agent = a
	s.mu.Unlock()
	return nil
}

// mcpNotice shows an MCP server's notice in every open session.
func (s *server) mcpNotice(n mcphost.Notice) {
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	if a != nil {
		a.MCPNotice(n)
	} else if n.Error {
		s.log.Warn("MCP server " + n.Server + ": " + n.Text)
	}
	if n.ToolsChanged && a != nil {
		go s.readvertise()
	}
}

// close ends every session (session.end) and stops their MCP servers,
// then the hub and the runtime.
func (s *server) close() {
	if err := s.agent.Close(context.Background()); err != nil {
		s.log.Warn(redact.String(err.Error()))
	}
	s.mu.Lock()
	open := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		open = append(open, ss)
	}
	s.mu.Unlock()
	for _, ss := range open {
		ss.stopMCP()
	}
	s.hub.Close()
	s.rt.Close()
}

// client is the connection once it exists.
func (s *server) client() *acpsdk.AgentSideConnection {
	<-s.ready
	return s.conn
}

func (s *server) clientCaps() acpsdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// onUpdate sends an agent update to the client as session/update
// notifications.
func (s *server) onUpdate(id string, u agent.Update) {
	s.mu.Lock()
	replay := s.replaying[id]
	s.mu.Unlock()
	for _, up := range mapUpdate(u, replay) {
		s.send(id, up)
	}
	s.observeUsage(id, u, replay)
}

func (s *server) send(id string, up acpsdk.SessionUpdate) {
	if err := s.client().SessionUpdate(s.ctx, acpsdk.SessionNotification{SessionId: acpsdk.SessionId(id), Update: up}); err != nil {
		s.log.Debug("session/update not sent", "session", id, "err", err)
	}
}

func (s *server) session(id acpsdk.SessionId) (*session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[string(id)]
	return ss, ok
}

// focused is the session the plugins' UI goes to ("" for none).
func (s *server) focused() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.sessions[s.focus]; !open {
		return ""
	}
	return s.focus
}

func (s *server) setFocus(id string) {
	s.mu.Lock()
	s.focus = id
	s.mu.Unlock()
}

// beginOpen starts holding published surfaces while a session opens.
func (s *server) beginOpen() {
	s.mu.Lock()
	s.opening++
	s.mu.Unlock()
}

// endOpen ends an opening: the session it opened (id; "" when it
// failed) takes the focus, and once no other session is opening the
// held surfaces are shown in the focused session.
func (s *server) endOpen(id string) {
	s.mu.Lock()
	s.opening--
	if id != "" {
		s.focus = id
	}
	var held []func(string)
	if s.opening == 0 {
		held, s.held = s.held, nil
	}
	s.mu.Unlock()
	if len(held) == 0 {
		return
	}
	to := s.focused()
	for _, show := range held {
		show(to)
	}
}

// hold keeps show for the end of the openings in progress; false when
// none is.
func (s *server) hold(show func(id string)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opening == 0 {
		return false
	}
	s.held = append(s.held, show)
	return true
}

// rpcError is a JSON-RPC error with the reference's code and message
// (never data).
func rpcError(code int, format string, args ...any) *acpsdk.RequestError {
	return &acpsdk.RequestError{Code: code, Message: redact.String(fmt.Sprintf(format, args...))}
}

// The JSON-RPC error codes the front end answers with.
const (
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// agentError maps an agent error of method to a JSON-RPC error.
func agentError(method string, err error) *acpsdk.RequestError {
	switch {
	case errors.Is(err, agent.ErrBusy):
		return rpcError(codeInvalidRequest, "%s: session already has an active prompt", method)
	case errors.Is(err, agent.ErrNoSession):
		return rpcError(codeInvalidParams, "%s: %v", method, err)
	}
	return rpcError(codeInternal, "%s: %v", method, err)
}

// gatedReader reads r once open is closed.
type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
