package bridge

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/internal/lspframe"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/engine"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// Options configure one serve run.
type Options struct {
	// Home is the bridge home (RX_BRIDGE_HOME). Required.
	Home string
	// Workspace overrides the workspace root the editor names.
	Workspace string
	// UserHome is the home directory whose convention folders
	// (~/.claude/commands, ~/.reasonix/skills, …) serve commands and
	// skills beside the plugins' (manifest.UserDirsHome); "" reads none.
	UserHome string
	// Version is the program version shown in serverInfo.
	Version string
	// Logger receives diagnostics for stderr; nil discards them.
	Logger *slog.Logger
	// ExitBudget bounds the graceful shutdown of every plugin when the
	// editor goes away without shutdown (stdin closed, a signal); default
	// 1.5 s. The kills that follow take at most 400 ms more, so the bridge
	// is gone within 2 s.
	ExitBudget time.Duration
	// MaxFrame is the largest inbound LSP body (default 64 MiB).
	MaxFrame int
	// MaxDocuments caps the text of open documents held in memory
	// (default DefaultMaxDocuments); documents past it are read from disk.
	MaxDocuments int
}

// Exit statuses of Serve.
const (
	ExitOK     = 0 // exit after shutdown
	ExitNoShut = 1 // exit without shutdown, the editor gone, or a fatal error
)

// Server is one editor connection.
type Server struct {
	opts Options
	log  *slog.Logger
	conn jsonrpc2.Conn
	life lifecycle

	ctx    context.Context // ends when the connection is torn down
	cancel context.CancelFunc
	wg     sync.WaitGroup // request handlers and background work

	// Set by initialize.
	client    clientCaps
	home      *manifest.Home
	workspace string
	// folders are the editor's local workspace folders (initialize,
	// then didChangeWorkspaceFolders); the engine's roots follow them.
	foldersMu sync.Mutex
	folders   []string
	session   string // the hub's session id, the one every sidecar is told
	eng       *engine.Engine
	hub       *editorui.Hub
	rt        *runtime
	agent     *agent.Agent

	inflight inflight
	prompts  promptCancels
	cmdReg   commandRegistration
	warnings warnThrottle
	docs     documents
	trace    atomic.Int32
	progress atomic.Int64
	// mcpProgressTokens maps an MCP call's progress token to its
	// work-done token (nil once its create failed).
	mcpProgressMu     sync.Mutex
	mcpProgressTokens map[string]protocol.ProgressToken
	chat              chatText

	exit     chan int
	teardown sync.Once
}

// Serve runs the LSP server on in/out until exit, the end of in, or ctx
// (a signal), and returns the process exit status. Every plugin is shut
// down before it returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) int {
	return newServer(opts).serve(ctx, in, out)
}

func newServer(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ExitBudget <= 0 {
		opts.ExitBudget = 1500 * time.Millisecond
	}
	s := &Server{opts: opts, exit: make(chan int, 1)}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.warnings.init(s)
	s.log = slog.New(&editorLog{s: s, next: opts.Logger.Handler()})
	if opts.MaxDocuments <= 0 {
		opts.MaxDocuments = DefaultMaxDocuments
	}
	s.docs.init(opts.MaxDocuments)
	s.inflight.init()
	return s
}

func (s *Server) serve(ctx context.Context, in io.Reader, out io.Writer) int {
	opts := s.opts
	stream := lspframe.New(in, out, func() error {
		if c, ok := in.(io.Closer); ok {
			return c.Close()
		}
		return nil
	}, lspframe.Options{MaxBody: opts.MaxFrame})
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(lspframe.Codec{}))
	s.conn.Go(s.ctx, s.handle)

	code := ExitNoShut
	select {
	case code = <-s.exit:
		s.stop(opts.ExitBudget * 2)
	case <-stream.Done():
		// The editor's input ended (conn.Done would wait for every
		// handler first).
		if err := stream.Err(); err != nil && !errors.Is(err, io.EOF) {
			opts.Logger.Warn("editor connection ended", "err", err)
		}
		if s.life.shutDown() {
			code = ExitOK
		}
		s.stop(opts.ExitBudget)
	case <-ctx.Done():
		if s.life.shutDown() {
			code = ExitOK
		}
		s.stop(opts.ExitBudget)
	}
	// Close waits for the handlers still running; after stop they end
	// promptly, but one stuck past the kill budget must not keep the
	// process from exiting.
	closed := make(chan struct{})
	go func() {
		_ = s.conn.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(killWait):
	}
	return code
}

// killWait bounds how long the bridge waits, once the exit budget ran out,
// for the killed sidecar trees to be gone before it exits.
const killWait = 400 * time.Millisecond

// stop ends everything the server runs: open requests are cancelled,
// agent sessions closed, every plugin shut down. The graceful part gets
// budget; then every sidecar tree still running is killed, and stop waits
// up to killWait for them to be gone, so the kills always run before the
// process exits. (A tree the bridge could not wait for is still ended by
// its supervisor when the bridge's lifeline closes: see exthost.)
func (s *Server) stop(budget time.Duration) {
	s.teardown.Do(func() {
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.shutdownAll()
			s.cancel()
			s.wg.Wait()
		}()
		select {
		case <-done:
		case <-time.After(budget):
			s.opts.Logger.Warn("plugins did not shut down in time; killing them", "budget", budget)
			s.cancel()
			if s.rt != nil {
				s.rt.set.Kill(killWait)
			}
		}
	})
}

// shutdownAll cancels open requests, closes sessions, the UI hub and
// every plugin generation. It is safe to call more than once.
func (s *Server) shutdownAll() {
	s.inflight.cancelAll()
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ExitBudget)
	defer cancel()
	if s.agent != nil {
		if err := s.agent.Close(ctx); err != nil {
			s.opts.Logger.Warn("closing agent sessions", "err", err)
		}
	}
	if s.hub != nil {
		s.hub.Close()
	}
	if s.rt != nil {
		s.rt.close()
	}
	s.warnings.flushAll()
}

// handle is the connection's handler. It runs on the read loop, so it
// never blocks it: notifications that must keep their order (document
// changes, cancellation) are applied here; every request but initialize
// releases the read loop (jsonrpc2.Async) and may wait on the editor (a
// quick-pick) without stalling anything else. A handler that panics —
// request, notification or initialize — is logged with its method, a
// request is answered InternalError, and the bridge goes on (jsonrpc2
// would end the connection).
func (s *Server) handle(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
	method := req.Method()
	isCall := req.IsCall()
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, nil
			if perr := s.panicked(method, p); isCall {
				err = perr
			}
		}
	}()
	if !isCall {
		s.notification(method, req.Params())
		return nil, nil
	}
	if err := s.life.admit(method); err != nil {
		return nil, err
	}
	h, ok := requests[method]
	if !ok {
		return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not found: "+method)
	}
	if method == "initialize" {
		// On the read loop: nothing may run before its answer is out.
		res, err := s.run(h, s.ctx, method, req.Params())
		if err != nil {
			s.life.failedInitialize()
			s.shutdownAll()
			return nil, wireError(err)
		}
		return res, nil
	}
	rctx, done := s.inflight.add(s.ctx, req.ID())
	defer done()
	if method == "rx/session/prompt" {
		// Registered here, on the read loop, so an rx/session/cancel read
		// right after this prompt finds it even before the prompt has
		// reached the agent.
		var forget func()
		rctx, forget = s.prompts.add(rctx, req.Params())
		defer forget()
	}
	if method == "rx/session/close" && s.agent != nil {
		// Announced here, on the read loop, so a load of the session read
		// after this close waits for it even if its handler starts first.
		if id := sessionIDOf(req.Params()); id != "" {
			defer s.agent.Closing(id)()
		}
	}
	s.wg.Add(1)
	defer s.wg.Done()
	jsonrpc2.Async(ctx) // the read loop goes on; req is now its own copy
	method = req.Method()
	if needsPlugins[method] && s.rt != nil {
		// Served from the plugins, never from the empty generation
		// before the first build (bounded by the start budget).
		if err := s.rt.set.Ready(rctx); err != nil && rctx.Err() == nil {
			s.log.Warn(method + " is served without the plugins: " + err.Error())
		}
	}
	res, err = s.run(h, rctx, method, req.Params())
	if err == nil && rctx.Err() != nil && !answersCancel[method] {
		err = rctx.Err()
	}
	if err != nil {
		return nil, wireError(err)
	}
	return res, nil
}

// run calls a handler; a panic fails only its request.
func (s *Server) run(h handler, ctx context.Context, method string, params []byte) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, s.panicked(method, p)
		}
	}()
	return h(s, ctx, params)
}

// panicked logs a recovered panic of the handler for method (with its
// stack on stderr; the editor gets a line) and returns the InternalError
// a request answers with.
func (s *Server) panicked(method string, p any) *jsonrpc2.Error {
	s.opts.Logger.Error("handler panicked", "method", method, "panic", p, "stack", string(debug.Stack()))
	msg := fmt.Sprintf("internal error serving %s", method)
	s.log.Error(fmt.Sprintf("%s: %v; the bridge goes on", msg, p))
	return jsonrpc2.NewError(jsonrpc2.InternalError, msg)
}

// handler serves one request.
type handler func(s *Server, ctx context.Context, params []byte) (any, error)

// requests maps every request method the bridge serves.
var requests = map[string]handler{
	"initialize":               (*Server).initialize, // run synchronously by handle
	"shutdown":                 (*Server).shutdown,
	"workspace/executeCommand": (*Server).executeCommand,
	"textDocument/codeAction":  (*Server).codeAction,
	"rx/actions":               (*Server).actions,
	"rx/plugins":               (*Server).plugins,
	"rx/models":                (*Server).models,
	"rx/lm/chat":               (*Server).lmChat,
	"rx/ui/submit":             (*Server).uiSubmit,
	"rx/session/new":           (*Server).sessionNew,
	"rx/session/prompt":        (*Server).sessionPrompt,
	"rx/session/setModel":      (*Server).sessionSetModel,
	"rx/session/setMode":       (*Server).sessionSetMode,
	"rx/session/list":          (*Server).sessionList,
	"rx/session/load":          (*Server).sessionLoad,
	"rx/session/close":         (*Server).sessionClose,
	"rx/session/delete":        (*Server).sessionDelete,
	"rx/session/rename":        (*Server).sessionRename,
	"rx/session/undoTurn":      (*Server).sessionUndoTurn,
}

// needsPlugins are the requests whose answer depends on the plugins:
// they wait for the first build after initialized (pluginrt.Set.Ready)
// instead of answering from the empty generation 0.
var needsPlugins = map[string]bool{
	"workspace/executeCommand": true, "textDocument/codeAction": true, "rx/actions": true, "rx/plugins": true,
	"rx/models": true, "rx/lm/chat": true, "rx/ui/submit": true, "rx/session/new": true, "rx/session/prompt": true,
	"rx/session/setModel": true, "rx/session/load": true,
}

// answersCancel are the requests whose handler answers a cancellation
// itself (a cancelled prompt ends with stopReason "cancelled").
var answersCancel = map[string]bool{"shutdown": true, "rx/session/prompt": true}

// notifications maps every notification the bridge applies after
// initialize ("exit" is handled before it, in notification).
var notifications = map[string]func(s *Server, params []byte){
	"initialized":                         (*Server).initialized,
	"$/cancelRequest":                     (*Server).cancelRequest,
	"$/setTrace":                          (*Server).setTrace,
	"textDocument/didOpen":                (*Server).didOpen,
	"textDocument/didChange":              (*Server).didChange,
	"textDocument/didClose":               (*Server).didClose,
	"workspace/didChangeWorkspaceFolders": (*Server).didChangeWorkspaceFolders,
	"rx/session/cancel":                   (*Server).sessionCancel,
}

// notification applies one notification in arrival order. Before
// initialize only exit counts; unknown notifications are ignored, as LSP
// says.
func (s *Server) notification(method string, params []byte) {
	if method == "exit" {
		code := ExitNoShut
		if s.life.shutDown() {
			code = ExitOK
		}
		select {
		case s.exit <- code:
		default:
		}
		return
	}
	if !s.life.initialized() || s.life.shutDown() {
		return
	}
	if n := notifications[method]; n != nil {
		n(s, params)
	}
}

// initialized registers the commands with an editor that registers them
// dynamically, and starts the plugins.
func (s *Server) initialized([]byte) {
	s.syncCommands(commands)
	if s.rt != nil {
		s.rt.set.Starting() // requests read from now on wait for the build
	}
	s.background("initialized", s.startPlugins)
}

// background runs fn on a goroutine the server waits for at teardown; a
// panic is logged under name and ends only fn.
func (s *Server) background(name string, fn func(ctx context.Context)) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			if p := recover(); p != nil {
				s.panicked(name, p)
			}
		}()
		fn(s.ctx)
	}()
}

// shutdown answers the LSP shutdown request once every plugin is down.
func (s *Server) shutdown(context.Context, []byte) (any, error) {
	s.shutdownAll()
	return nil, nil
}

func newSessionID() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "rx-" + hex.EncodeToString(b[:])
}
