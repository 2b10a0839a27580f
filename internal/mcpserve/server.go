package mcpserve

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/engine"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runtimeSession is the session id the plugin runtime's sidecars and the
// UI hub are stamped with: one runtime serves every MCP client of the
// process.
const runtimeSession = "mcp"

// Options configure a Server.
type Options struct {
	// Home is the bridge home (absolute); UserHome the user's home for
	// user-level package contents ("" for none).
	Home, UserHome string
	// Workspace is the workspace the sidecars are told about and where a
	// Claude-format command's "@path" files are read (default: the
	// process cwd).
	Workspace string
	// Version is reported as serverInfo.version.
	Version string
	// Logger receives diagnostics (never stdout); nil discards them.
	Logger *slog.Logger
}

// Server is one engine served as an MCP server to any number of MCP
// sessions (one on stdio; one per client over HTTP).
type Server struct {
	opts Options
	log  *slog.Logger
	eng  *engine.Engine
	mcp  *mcp.Server

	// base is the parent of every action's context: actions outlive the
	// request that started them (multi-round-trip calls) and end at Close.
	base   context.Context
	cancel context.CancelFunc

	next  atomic.Uint64
	mu    sync.Mutex
	calls map[string]*call // tool calls in progress, by the id their actions run on behalf of
	// published are the names of the tools, prompts and resources last
	// added, to remove the ones a new generation no longer has.
	tools, prompts, resources []string
}

// New opens the engine (building the first generation) and the MCP
// server over it. Close it.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Workspace == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		opts.Workspace = wd
	}
	ws, err := filepath.Abs(opts.Workspace)
	if err != nil {
		return nil, err
	}
	opts.Workspace = ws
	s := &Server{opts: opts, log: opts.Logger, calls: map[string]*call{}}
	s.base, s.cancel = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "rx-bridge", Title: "rx-bridge", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "Tools run Reasonix plugin actions (/<plugin>:<action>); prompts are the installed packages' commands; resources are their skills.",
		// The SDK's own lines (a session connected, ended) only at debug.
		Logger: slog.New(floor{h: opts.Logger.Handler(), min: slog.LevelWarn}),
		// Advertise the three lists even while they are empty, so a
		// client listens for their list_changed; no logging (deprecated
		// as of 2026-07-28: the plugins' surfaces go to stderr).
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true},
		},
	})
	var built atomic.Bool
	s.eng, err = engine.Open(ctx, engine.Options{
		Home:      opts.Home,
		UserHome:  opts.UserHome,
		Workspace: opts.Workspace,
		SessionID: runtimeSession,
		UI:        &clientUI{s: s},
		Editor:    diskEditor{},
		Logger:    s.log,
		Warn:      func(m string) { s.log.Warn(redact.String(m)) },
		OnBuild: func(context.Context) (func(*pluginrt.Snapshot, error), error) {
			return func(snap *pluginrt.Snapshot, err error) {
				if err != nil {
					s.log.Warn("plugin build failed; the running generation stays", "err", redact.String(err.Error()))
					return
				}
				for _, w := range snap.Warnings {
					s.log.Warn(w)
				}
				if built.Load() {
					s.publish(snap)
				}
			}, nil
		},
	})
	if err != nil {
		s.cancel()
		return nil, err
	}
	built.Store(true)
	snap, release := s.eng.Runtime.Acquire()
	s.publish(snap)
	release()
	return s, nil
}

// Reload rebuilds the plugin set; its tools, prompts and resources
// replace the old ones and every client is told their lists changed.
func (s *Server) Reload(ctx context.Context) error {
	_, err := s.eng.Runtime.Reload(ctx)
	return err
}

// Run serves one MCP session on t (stdio) until it ends or ctx is done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// ServeHTTP serves the streamable HTTP transport on l (one MCP session
// per client) until ctx is done.
func (s *Server) ServeHTTP(ctx context.Context, l net.Listener) error {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, nil)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close ends the engine: the hub, the plugin runtime and its sidecars.
func (s *Server) Close() {
	s.cancel()
	if err := s.eng.Close(context.Background()); err != nil {
		s.log.Warn(redact.String(err.Error()))
	}
}

// publish replaces the tools, prompts and resources with snap's; the
// SDK tells every session their lists changed.
func (s *Server) publish(snap *pluginrt.Snapshot) {
	tools := s.toolsOf(snap)
	prompts := s.promptsOf(snap)
	resources := s.resourcesOf(snap)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mcp.RemoveTools(s.tools...)
	s.mcp.RemovePrompts(s.prompts...)
	s.mcp.RemoveResources(s.resources...)
	s.tools, s.prompts, s.resources = nil, nil, nil
	for _, t := range tools {
		s.mcp.AddTool(t.tool, t.handler)
		s.tools = append(s.tools, t.tool.Name)
	}
	for _, p := range prompts {
		s.mcp.AddPrompt(p.prompt, p.handler)
		s.prompts = append(s.prompts, p.prompt.Name)
	}
	for _, r := range resources {
		s.mcp.AddResource(r.resource, r.handler)
		s.resources = append(s.resources, r.resource.URI)
	}
}

// call is one tool call in progress: the MCP session it came from, the
// questions its action could not ask, and, for a client on the
// multi-round-trip protocol (2026-07-28 and later), the question waiting
// for the client's next round.
type call struct {
	session *mcp.ServerSession
	mrtr    bool
	// questions carries a question of the action to the handler that
	// returns it as an input request; done the action's outcome.
	questions chan question
	done      chan *mcp.CallToolResult
	cancel    context.CancelFunc

	mu      sync.Mutex
	unasked []string // questions it could not ask
	waiting *question
	timer   *time.Timer // cancels a call whose client never comes back
}

// question is one elicitation of a multi-round-trip call, answered
// through answer.
type question struct {
	id     string
	params *mcp.ElicitParams
	answer chan *mcp.ElicitResult
}

// begin registers a tool call from session ss; its action's calls into
// the sidecar are made on behalf of the returned id, so the plugin's
// questions reach this session (exthost.OnBehalfOf).
func (s *Server) begin(ss *mcp.ServerSession) (string, *call) {
	id := "mcp-call-" + rand.Text()
	c := &call{session: ss, mrtr: multiRoundTrip(ss), questions: make(chan question), done: make(chan *mcp.CallToolResult, 1)}
	s.mu.Lock()
	s.calls[id] = c
	s.mu.Unlock()
	return id, c
}

// end forgets call id.
func (s *Server) end(id string) {
	s.mu.Lock()
	delete(s.calls, id)
	s.mu.Unlock()
}

// callByID is call id while it runs (nil once it ended).
func (s *Server) callByID(id string) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[id]
}

// multiRoundTrip reports whether ss speaks MCP 2026-07-28 or later, where
// a server asks during a call by returning input requests (SEP-2322)
// instead of sending elicitation/create.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// callOf is the tool call a plugin's UI traffic of origin o belongs to;
// nil for session-less traffic or a call that has ended.
func (s *Server) callOf(o editorui.Origin) *call {
	return s.callByID(o.Session)
}

// diskEditor is the agent's editor: this front end runs no turn, so
// nothing asks it for more than the disk.
type diskEditor struct{}

func (diskEditor) Document(context.Context, string) (string, bool, error) { return "", false, nil }
func (diskEditor) ApplyEdit(_ context.Context, e agent.FileEdit) error {
	return fmt.Errorf("rx-bridge mcp runs no agent turn: cannot edit %s", e.Path)
}
func (diskEditor) RequestPermission(context.Context, agent.PermissionRequest) (agent.PermissionOutcome, error) {
	return agent.PermissionDeny, nil
}

// floor passes records of min and above (all of them when the logger
// itself is at debug).
type floor struct {
	h   slog.Handler
	min slog.Level
}

func (f floor) Enabled(ctx context.Context, l slog.Level) bool {
	return f.h.Enabled(ctx, l) && (l >= f.min || f.h.Enabled(ctx, slog.LevelDebug))
}
func (f floor) Handle(ctx context.Context, r slog.Record) error { return f.h.Handle(ctx, r) }
func (f floor) WithAttrs(a []slog.Attr) slog.Handler            { return floor{f.h.WithAttrs(a), f.min} }
func (f floor) WithGroup(n string) slog.Handler                 { return floor{f.h.WithGroup(n), f.min} }
