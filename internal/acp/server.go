package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/engine"
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

	eng   *engine.Engine
	rt    *pluginrt.Set
	hub   *editorui.Hub
	agent *agent.Agent

	mu       sync.Mutex
	caps     acpsdk.ClientCapabilities
	sessions map[string]*session
	// replaying holds the sessions whose stored updates are being
	// replayed (session/load).
	replaying map[string]bool
	// focus is the most recently active session: the one that last
	// started a prompt or was opened. A session-less question of a
	// plugin (Origin.Session "") is asked in it.
	focus string
	// opening counts the sessions being opened; meanwhile published
	// surfaces are held (a plugin's session.start status belongs to the
	// session starting, which the client knows only from its response),
	// and delivered when the last opening ends.
	opening int
	held    []func()
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
	router := newMethodRouter(in, s.closeRead)
	router.onOversize = s.oversize
	router.onMalformed = func(code int, msg string) { s.replyError(nil, code, msg) }
	s.conn = acpsdk.NewAgentSideConnection(s, s.out, &gatedReader{r: router, open: logged})
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

// oversize answers a request longer than maxFrame, which was dropped
// before the SDK could see it (its scanner would end the connection):
// an Invalid Request error naming the limit, so the client can say what
// happened and every session stays. A notification that long is only
// logged.
func (s *server) oversize(id json.RawMessage, size int) {
	msg := fmt.Sprintf("request of %d bytes is over this agent's frame limit of %d MiB; nothing was done (attach large files as resource links instead of embedding them)", size, maxFrame>>20)
	if id == nil {
		s.log.Warn("dropped a frame over the limit", "bytes", size, "limit", maxFrame)
		return
	}
	s.replyError(id, codeInvalidRequest, msg)
}

// replyError writes an error response the SDK cannot (for a frame it
// never saw); a nil id is JSON-RPC's null.
func (s *server) replyError(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return
	}
	_, _ = s.out.write(append(b, '\n'))
}

// start opens the engine with this connection as the plugins' UI and
// the agent's editor; its first generation is built before the client
// is read.
func (s *server) start(ctx context.Context) error {
	eng, err := engine.Open(ctx, engine.Options{
		Home:      s.opts.Home,
		UserHome:  s.opts.UserHome,
		Workspace: s.opts.Workspace,
		SessionID: runtimeSession,
		UI:        &clientUI{s: s},
		Editor:    &clientEditor{s: s},
		OnUpdate:  s.onUpdate,
		Logger:    s.log,
		Warn:      func(m string) { s.log.Warn(redact.String(m)) },
		MCPNotice: s.mcpNotice,
		OnBuild: func(context.Context) (func(*pluginrt.Snapshot, error), error) {
			return func(snap *pluginrt.Snapshot, err error) {
				if err == nil {
					// Every build's warnings, the first's included, once.
					for _, w := range snap.Warnings {
						s.log.Warn(w)
					}
					go s.readvertise()
				}
			}, nil
		},
	})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.eng, s.rt, s.hub, s.agent = eng, eng.Runtime, eng.Hub, eng.Agent
	s.mu.Unlock()
	return nil
}

// mcpNotice shows an MCP server's notice: the engine has put it in every
// open session; one that comes before the engine is open goes to the
// log, and a change of tools or prompts refreshes the command lists.
func (s *server) mcpNotice(n mcphost.Notice) {
	s.mu.Lock()
	open := s.eng != nil
	s.mu.Unlock()
	if !open && n.Error {
		s.log.Warn("MCP server " + n.Server + ": " + n.Text)
	}
	if n.ToolsChanged && open {
		go s.readvertise()
	}
}

// close ends every session (session.end), the hub and the runtime (the
// engine), then the sessions' own MCP servers.
func (s *server) close() {
	if err := s.eng.Close(context.Background()); err != nil {
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
	if !replay && u.Subagent == nil && u.Kind == agent.UpdateNotice && u.Notice != nil && u.Notice.Kind == agent.NoticeMode {
		s.modeChanged(id)
	}
}

// modeChanged tells the client a session's mode changed on its own (an
// approved plan left plan mode): current_mode_update, and
// config_option_update for clients that show the mode as an option.
func (s *server) modeChanged(id string) {
	ss, ok := s.session(acpsdk.SessionId(id))
	if !ok {
		return
	}
	_, opts := s.configState(ss.s)
	s.send(id, acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: opts}})
	s.send(id, acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(ss.s.Mode())}})
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

// focused is the most recently active session ("" for none).
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

// askIn is the session a plugin's question of origin o is asked in: the
// session the engine attributed it to (o.Session) while it is open, a
// session-less question in the most recently active session; "" when
// there is none, or the session it belongs to is no longer open (the
// question is cancelled: it must not reach another session).
func (s *server) askIn(o editorui.Origin) string {
	if o.Session == "" {
		return s.focused()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.sessions[o.Session]; !open {
		return ""
	}
	return o.Session
}

// showIn are the sessions a plugin's surface of origin o is shown in: the
// session the engine attributed it to (o.Session) while it is open; a
// session-less one, or one of a session no longer open, in every open
// session, in id order.
func (s *server) showIn(o editorui.Origin) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.sessions[o.Session]; open {
		return []string{o.Session}
	}
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// beginOpen starts holding published surfaces while a session opens.
func (s *server) beginOpen() {
	s.mu.Lock()
	s.opening++
	s.mu.Unlock()
}

// endOpen ends an opening: the session it opened (id; "" when it
// failed) becomes the most recently active, and once no other session is
// opening the held surfaces are delivered.
func (s *server) endOpen(id string) {
	s.mu.Lock()
	s.opening--
	if id != "" {
		s.focus = id
	}
	var held []func()
	if s.opening == 0 {
		held, s.held = s.held, nil
	}
	s.mu.Unlock()
	for _, show := range held {
		show()
	}
}

// hold keeps show for the end of the openings in progress; false when
// none is.
func (s *server) hold(show func()) bool {
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
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInvalidParams  = -32602
	codeInternal       = -32603
	codeAuthRequired   = -32000
)

// agentError maps an agent error of method to a JSON-RPC error.
func agentError(method string, err error) *acpsdk.RequestError {
	switch {
	case errors.Is(err, agent.ErrBusy):
		return rpcError(codeInvalidRequest, "%s: session already has an active prompt", method)
	case errors.Is(err, agent.ErrNoSession):
		return rpcError(codeInvalidParams, "%s: %v", method, err)
	case errors.Is(err, agent.ErrPromptTooLarge), errors.Is(err, agent.ErrImages):
		return rpcError(codeInvalidParams, "%s: %v", method, err)
	case errors.Is(err, agent.ErrNoModel):
		// ACP's "authentication required": a client offers the auth
		// method (the terminal running `rx-bridge setup`).
		return &acpsdk.RequestError{Code: codeAuthRequired, Message: fmt.Sprintf("%s: %v", method, err), Data: map[string]any{"authMethods": []string{authSetup}}}
	case errors.Is(err, transcript.ErrLocked):
		// Not the agent's failure: the user has the session open
		// elsewhere (an editor's `rx-bridge serve`, another ACP agent).
		return rpcError(codeInvalidRequest, "%s: the session is open in another rx-bridge process (an editor or another agent); close it there first", method)
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
