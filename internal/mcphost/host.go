package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Defaults of Options (the reference's [tools] mcp_call_timeout_seconds and
// mcp_startup_timeout_seconds).
const (
	DefaultCallTimeout    = 300 * time.Second
	DefaultStartupTimeout = 30 * time.Second
	// DefaultMaxResultBytes bounds a tool result like the agent's
	// run_command output (agent/tools.MaxCommandOutput).
	DefaultMaxResultBytes = 64 << 10
)

// Close bounds of a stdio server (the reference's transport_stdio close).
const (
	closeGrace = 750 * time.Millisecond
	reapBudget = 5 * time.Second
	// stderrTailBytes is how much of a server's stderr is kept.
	stderrTailBytes = 16 << 10
)

// The handshake. The client offers the newest protocol the SDK speaks
// (MCP's lifecycle: the server answers with that version or the newest it
// supports, and the SDK accepts any version it supports); a server whose
// handshake fails on that offer gets a second handshake offering
// fallbackVersion, the one the reference pins. Status.Protocol records
// which was agreed (docs/ARCHITECTURE.md "MCP servers").
const (
	fallbackVersion = "2024-11-05"
	clientName      = "reasonix"
	clientVersion   = "dev"
)

// ErrUnknown is wrapped by Call and GetPrompt for a name that is not one
// of this host's tools or prompts.
var ErrUnknown = errors.New("unknown MCP tool or prompt")

// Options configure a Host. Zero values mean the defaults.
type Options struct {
	// Workspace, when set, is announced as the client's one root
	// (capabilities.roots {listChanged:false}) unless Roots is set.
	Workspace string
	// Client is what the servers may ask of the editor: roots,
	// elicitation, progress, OAuth.
	Client
	// CacheDir holds the schema cache; empty means no cache, so every
	// enabled server is discovered in the background at New.
	CacheDir       string
	CallTimeout    time.Duration
	StartupTimeout time.Duration
	// MaxResultBytes bounds a tool result's text; Truncate, when set,
	// does the cutting (the agent's own truncation), else the first and
	// last halves are kept with a marker between.
	MaxResultBytes int
	Truncate       func(text string, limit int) string
	// Getenv resolves ${VAR} references at connect time; default
	// os.LookupEnv. Phase 2 layers the project/home .env behind it.
	Getenv func(string) (string, bool)
	// Spawn starts stdio servers; default TreeSpawner.
	Spawn Spawner
	// HTTPTransport is the base RoundTripper of http and sse servers;
	// default a clone of http.DefaultTransport per connection.
	HTTPTransport http.RoundTripper
	// OnNotice receives notices; it may be called from any goroutine,
	// concurrently, and must not call back into the Host synchronously.
	OnNotice func(Notice)

	// listChangedLimit overrides defaultListChangedLimit; negative: no
	// limit (tests of the coalescing bounds).
	listChangedLimit int
}

// Client is the editor's side of the MCP client: what servers may ask of
// it and report to it. Zero values announce or serve nothing more than
// roots from Options.Workspace.
type Client struct {
	// Roots are the workspace folders, the client's roots (roots/list);
	// empty means Options.Workspace alone.
	Roots []string
	// Elicit, when set, answers servers' elicitation/create requests
	// (form mode, announced as the elicitation capability) by asking the
	// user; it blocks until the user answers or ctx ends. Nil announces
	// no elicitation.
	Elicit func(ctx context.Context, e Elicitation) (ElicitResult, error)
	// OnProgress, when set, receives the servers' progress reports of
	// tool calls in flight (each call offers a progress token) and the
	// end of each call that reported any. It may be called from any
	// goroutine and must not block long.
	OnProgress func(Progress)
	// OpenURL shows the user a page to open in their browser (a Streamable
	// HTTP server's OAuth authorization page): the editor opens it, or a
	// notice shows the URL. Nil: a server that requires OAuth fails to
	// connect, saying so.
	OpenURL func(ctx context.Context, server, url string) error
	// TokenDir keeps the OAuth tokens, one file per server (0600,
	// written atomically), so a later session needs no new
	// authorization; "" keeps them for the host's life only.
	TokenDir string
}

// A server that sends more than defaultListChangedLimit list_changed
// notifications (tools, prompts and resources together) within
// listChangedWindow is flooding: it is stopped and reported once.
const (
	defaultListChangedLimit = 1000
	listChangedWindow       = 10 * time.Second
)

// Notice is something the user should see, about one server.
type Notice struct {
	Server string
	// Text is ready to show (redacted).
	Text string
	// Error marks a failure notice.
	Error bool
	// ToolsChanged says Tools (and Prompts) changed: re-read them.
	ToolsChanged bool
}

// State is where a server is in its life.
type State string

// The server states.
const (
	// StateDisabled: auto_start is false and nobody connected it yet.
	StateDisabled State = "disabled"
	// StateIdle: tools known from the schema cache, no process yet; the
	// first call starts it.
	StateIdle     State = "idle"
	StateStarting State = "starting"
	StateReady    State = "ready"
	// StateFailed: it could not start, or stopped on its own; Err says
	// why and its tools are gone until Connect succeeds.
	StateFailed State = "failed"
	StateClosed State = "closed"
)

// Tool is one model-visible MCP tool.
type Tool struct {
	// Name is mcp__<Norm(server)>__<Norm(tool)>.
	Name    string
	Server  string
	RawName string
	// Description and InputSchema (a JSON object) are the server's.
	Description string
	InputSchema json.RawMessage
	// ReadOnly and Destructive are the server's annotations: plan mode
	// lets read-only tools run and blocks destructive ones.
	ReadOnly    bool
	Destructive bool
	// Placeholder marks a tool served from the schema cache or the
	// connect stub: its server is not running yet.
	Placeholder bool
	stub        bool
}

// Prompt is one MCP prompt, typed as "/" + Name.
type Prompt struct {
	Name        string
	Server      string
	RawName     string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is a declared prompt argument; positional arguments map
// onto them in order.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// Result is a tool call's outcome as the model should see it.
type Result struct {
	// Text is the server's content rendered as text, bounded by
	// MaxResultBytes. It is the server's output verbatim: redact it
	// before display as any plugin output.
	Text    string
	IsError bool
}

// Status describes one server for plugin show, doctor and rx/plugins.
type Status struct {
	Name        string
	DisplayName string
	Source      Source
	Owner       string
	Type        string
	// Target is the command or URL, redacted.
	Target  string
	State   State
	Tools   int
	Prompts int
	// Protocol is the MCP protocol version agreed with the running (or
	// last connected) server; "" before it connected.
	Protocol string
	// Err is why the server failed, redacted (with its stderr tail).
	Err string
}

// Host runs a session's MCP servers. It is safe for concurrent use.
type Host struct {
	opts    Options
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	closed  bool
	servers []*server

	progress progressCalls
}

type server struct {
	cfg Server
	typ string
	// Guarded by Host.mu.
	state         State
	err           string
	tools         []Tool
	prompts       []Prompt
	pinned        []Tool
	pinnedPrompts []Prompt
	stub          bool
	starting      chan struct{}
	conn          *conn
	protocol      string
	oauth         *oauthHandler
}

// New takes the session's servers (Merge's output) and starts what must
// start: an enabled server with a valid schema cache entry stays idle
// with its cached tools; one without gets one background discovery and a
// connect stub meanwhile; auto_start false servers wait for Connect. A
// definition that can never start is reported (Status, a notice) and
// skipped. New does not block on any server.
func New(servers []Server, opts Options) *Host {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = DefaultStartupTimeout
	}
	if opts.MaxResultBytes <= 0 {
		opts.MaxResultBytes = DefaultMaxResultBytes
	}
	if opts.Getenv == nil {
		opts.Getenv = os.LookupEnv
	}
	if opts.Spawn == nil {
		opts.Spawn = TreeSpawner
	}
	h := &Host{opts: opts}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	var notices []Notice
	seen := map[string]bool{}
	h.mu.Lock()
	for _, cfg := range servers {
		s := &server{cfg: cfg, state: StateDisabled}
		h.servers = append(h.servers, s)
		typ, err := cfg.check()
		if err == nil && seen[cfg.Name] {
			err = fmt.Errorf("MCP server %q is defined twice", cfg.Name)
		}
		seen[cfg.Name] = true
		if err != nil {
			s.state, s.err = StateFailed, redact.String(err.Error())
			notices = append(notices, Notice{Server: cfg.Name, Text: s.err, Error: true})
			continue
		}
		s.typ = typ
		if !cfg.AutoStart {
			continue
		}
		if c := h.cached(cfg); c != nil {
			s.state = StateIdle
			s.pinned, s.pinnedPrompts = c.tools(cfg.Name), c.prompts(cfg.Name)
			continue
		}
		s.stub = true
		h.startLocked(s)
	}
	h.mu.Unlock()
	for _, n := range notices {
		h.notify(n)
	}
	return h
}

func (h *Host) cached(cfg Server) *cacheFile {
	if h.opts.CacheDir == "" {
		return nil
	}
	c, err := readCache(h.opts.CacheDir, cfg)
	if err != nil {
		return nil
	}
	return c
}

func (c *cacheFile) tools(server string) []Tool {
	var out []Tool
	for _, t := range c.Tools {
		out = append(out, Tool{Name: ToolName(server, t.Name), Server: server, RawName: t.Name, Description: t.Description,
			InputSchema: t.InputSchema, ReadOnly: t.ReadOnly, Destructive: t.Destructive, Placeholder: true})
	}
	return out
}

func (c *cacheFile) prompts(server string) []Prompt {
	var out []Prompt
	for _, p := range c.Prompts {
		out = append(out, Prompt{Name: ToolName(server, p.Name), Server: server, RawName: p.Name, Description: p.Description, Arguments: p.Arguments})
	}
	return out
}

func (h *Host) notify(n Notice) {
	if h.opts.OnNotice != nil {
		h.opts.OnNotice(n)
	}
}

// Tools lists the model-visible tools now, in server order: a ready
// server's tools (its cached set while that is pinned), an idle server's
// cached placeholders, the connect stub of a server being discovered.
// Failed, disabled and closed servers contribute nothing.
func (h *Host) Tools() []Tool {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Tool
	for _, s := range h.servers {
		out = append(out, s.visibleTools()...)
	}
	return out
}

func (s *server) visibleTools() []Tool {
	switch s.state {
	case StateReady, StateIdle, StateStarting:
		if s.pinned != nil {
			return s.pinned
		}
		if s.state == StateReady {
			return s.tools
		}
		if s.stub {
			return []Tool{{
				Name: connectStubName(s.cfg.Name), Server: s.cfg.Name, RawName: "connect", Placeholder: true, stub: true,
				Description: fmt.Sprintf("The MCP server %s is starting and its tools are not known yet. Call this to wait for it and list its tools.", s.cfg.Name),
				InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), ReadOnly: true,
			}}
		}
	}
	return nil
}

func (s *server) visiblePrompts() []Prompt {
	switch s.state {
	case StateReady, StateIdle, StateStarting:
		if s.state == StateReady {
			return s.prompts
		}
		return s.pinnedPrompts
	}
	return nil
}

// Prompts lists the MCP prompts now, like Tools.
func (h *Host) Prompts() []Prompt {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Prompt
	for _, s := range h.servers {
		out = append(out, s.visiblePrompts()...)
	}
	return out
}

// Status describes every server, in config order.
func (h *Host) Status() []Status {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Status
	for _, s := range h.servers {
		st := Status{Name: s.cfg.Name, DisplayName: s.cfg.DisplayName, Source: s.cfg.Source, Owner: s.cfg.Owner,
			Type: s.typ, Target: redact.String(s.cfg.Target()), State: s.state, Err: s.err, Protocol: s.protocol}
		if st.Type == "" {
			st.Type = s.cfg.Type
		}
		for _, t := range s.visibleTools() {
			if !t.stub {
				st.Tools++
			}
		}
		st.Prompts = len(s.visiblePrompts())
		out = append(out, st)
	}
	return out
}

func (h *Host) find(name string) *server {
	for _, s := range h.servers {
		if s.cfg.Name == name {
			return s
		}
	}
	return nil
}

// Connect starts (or restarts, after a failure) the named server and waits
// until it is ready or has failed, then returns how many tools it has.
// It is /mcp connect and plugin doctor's probe. A ready server is left as
// it is.
func (h *Host) Connect(ctx context.Context, name string) (int, error) {
	h.mu.Lock()
	s := h.find(name)
	if s == nil {
		h.mu.Unlock()
		return 0, fmt.Errorf("%w: no MCP server %q", ErrUnknown, name)
	}
	if s.typ == "" {
		err := errors.New(s.err)
		h.mu.Unlock()
		return 0, err
	}
	if s.state == StateDisabled || s.state == StateFailed {
		h.startLocked(s)
	}
	h.mu.Unlock()
	if _, err := h.ensure(ctx, s); err != nil {
		return 0, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(s.tools), nil
}

// Starting names the servers whose tools are not known yet because they
// are starting (a cold schema cache: the model sees only their connect
// stub), in config order.
func (h *Host) Starting() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, s := range h.servers {
		if s.state == StateStarting && s.pinned == nil {
			out = append(out, s.cfg.Name)
		}
	}
	return out
}

// WaitStarting waits until every server Starting names now is ready or
// has failed, or ctx ends, and returns those still starting then. A
// session waits here before its first round so the model's first prompt
// sees the tools, as Claude Code waits for its servers; ctx bounds the
// wait (each start is also bounded by its startup timeout).
func (h *Host) WaitStarting(ctx context.Context) []string {
	h.mu.Lock()
	var waits []*server
	var chans []chan struct{}
	for _, s := range h.servers {
		if s.state == StateStarting && s.pinned == nil && s.starting != nil {
			waits, chans = append(waits, s), append(chans, s.starting)
		}
	}
	h.mu.Unlock()
	var still []string
	for i, s := range waits {
		select {
		case <-chans[i]:
			continue
		case <-ctx.Done():
		}
		select {
		case <-chans[i]:
		default:
			still = append(still, s.cfg.Name)
		}
	}
	return still
}

// startLocked begins one start attempt; h.mu is held.
func (h *Host) startLocked(s *server) {
	if h.closed {
		return
	}
	s.state, s.err = StateStarting, ""
	done := make(chan struct{})
	s.starting = done
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(done)
		h.start(s)
	}()
}

// start dials the server, lists its tools and prompts, and publishes the
// outcome.
func (h *Host) start(s *server) {
	// The startup timeout pauses while an OAuth authorization waits for
	// the user.
	ctx, clock, cancel := withStartClock(h.ctx, h.startupTimeout(s.cfg))
	defer cancel()
	c, tools, prompts, err := h.dial(ctx, s, "")
	if err != nil && c != nil && c.cs == nil && isServerError(err) && ctx.Err() == nil && h.ctx.Err() == nil {
		// The handshake offering the newest version failed: the server
		// may speak only the reference's. One more, offering that.
		c.shutdown()
		c, tools, prompts, err = h.dial(ctx, s, fallbackVersion)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		if c != nil {
			c.shutdown()
		}
		return
	}
	if err != nil {
		if clock.expiredNow() {
			err = fmt.Errorf("no answer within %s", h.startupTimeout(s.cfg))
		}
		msg := fmt.Sprintf("mcp server %q failed to start: %v", s.cfg.Name, err)
		if c != nil {
			h.mu.Unlock()
			c.shutdown()
			if t := c.stderr.String(); t != "" {
				msg += "; stderr: " + t
			}
			h.mu.Lock()
		}
		msg = redact.String(msg)
		s.state, s.err, s.stub, s.pinned, s.pinnedPrompts = StateFailed, msg, false, nil, nil
		h.mu.Unlock()
		h.notify(Notice{Server: s.cfg.Name, Text: msg, Error: true, ToolsChanged: true})
		return
	}
	if c.flooded {
		// It flooded list_changed during the discovery.
		msg := redact.String(c.why)
		s.state, s.err, s.stub, s.pinned, s.pinnedPrompts = StateFailed, msg, false, nil, nil
		h.mu.Unlock()
		c.shutdown()
		h.notify(Notice{Server: s.cfg.Name, Text: msg, Error: true, ToolsChanged: true})
		return
	}
	changed := s.pinned == nil
	s.state, s.conn, s.tools, s.prompts, s.stub = StateReady, c, tools, prompts, false
	if r := c.cs.InitializeResult(); r != nil {
		s.protocol = r.ProtocolVersion
	}
	if c.relistQueued {
		// A list changed during the discovery.
		h.startRelistLocked(s, c)
	}
	h.wg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.wg.Done()
		h.watch(s, c)
	}()
	if h.opts.CacheDir != "" {
		// A failed write only costs the next session a discovery.
		_ = writeCache(h.opts.CacheDir, s.cfg, tools, prompts)
	}
	h.notify(Notice{Server: s.cfg.Name, Text: fmt.Sprintf("connected %s — %d tools", s.cfg.Name, len(tools)), ToolsChanged: changed})
}

func (h *Host) startupTimeout(cfg Server) time.Duration {
	if cfg.StartupTimeout > 0 {
		return cfg.StartupTimeout
	}
	return h.opts.StartupTimeout
}

// watch waits for the connection to end: the session closed or the
// process exited. Unless the host ended it, the server has failed and its
// tools are gone.
func (h *Host) watch(s *server, c *conn) {
	var exited <-chan struct{}
	if c.proc != nil {
		exited = c.proc.Exited()
	}
	select {
	case <-c.ended:
	case <-exited:
	case <-c.ctx.Done():
	}
	h.lost(s, c)
}

// lost handles a connection that ended. The first caller for a
// connection shuts it down, records why and tells the user; concurrent
// callers wait for that and get the same text. A connection the host
// closed itself is only reported as closed.
func (h *Host) lost(s *server, c *conn) string {
	c.lostOnce.Do(func() {
		h.mu.Lock()
		if s.conn != c {
			h.mu.Unlock()
			c.reason = fmt.Sprintf("mcp server %q: the MCP host is closed", s.cfg.Name)
			return
		}
		s.conn, s.state, s.err = nil, StateFailed, fmt.Sprintf("mcp server %q stopped", s.cfg.Name)
		s.pinned, s.pinnedPrompts, s.tools, s.prompts = nil, nil, nil, nil
		if c.why != "" {
			// The host stopped it, and says why.
			s.err = redact.String(c.why)
			c.reason = s.err
			h.mu.Unlock()
			c.shutdown()
			h.notify(Notice{Server: s.cfg.Name, Text: c.reason, Error: true, ToolsChanged: true})
			return
		}
		h.mu.Unlock()
		c.shutdown()
		reason := "the connection closed"
		if c.proc != nil {
			reason = "the process exited"
			if st := c.proc.Status(); st != "" {
				reason += " (" + st + ")"
			}
		}
		if t := c.stderr.String(); t != "" {
			reason += "; stderr: " + t
		}
		c.reason = redact.String(fmt.Sprintf("mcp server %q stopped: %s; its tools are no longer available", s.cfg.Name, reason))
		h.mu.Lock()
		if s.state == StateFailed && s.conn == nil {
			s.err = c.reason
		}
		h.mu.Unlock()
		h.notify(Notice{Server: s.cfg.Name, Text: c.reason, Error: true, ToolsChanged: true})
	})
	return c.reason
}

// ensure returns the server's live connection, starting it if it is idle
// and waiting while it starts.
func (h *Host) ensure(ctx context.Context, s *server) (*conn, error) {
	h.mu.Lock()
	for {
		if h.closed {
			h.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q: the MCP host is closed", s.cfg.Name)
		}
		switch s.state {
		case StateReady:
			c := s.conn
			h.mu.Unlock()
			return c, nil
		case StateIdle:
			h.startLocked(s)
		case StateStarting:
			ch := s.starting
			h.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			h.mu.Lock()
			if s.state == StateFailed {
				err := errors.New(s.err)
				h.mu.Unlock()
				return nil, err
			}
		case StateDisabled:
			h.mu.Unlock()
			return nil, fmt.Errorf("mcp server %q is not connected (auto_start is false): connect it first", s.cfg.Name)
		default:
			err := fmt.Errorf("mcp server %q is not running: %s", s.cfg.Name, s.err)
			h.mu.Unlock()
			return nil, err
		}
	}
}

// lookup finds a visible tool by its model-visible name.
func (h *Host) lookup(name string) (*server, Tool, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.servers {
		for _, t := range s.visibleTools() {
			if t.Name == name {
				return s, t, true
			}
		}
	}
	return nil, Tool{}, false
}

// Call runs the tool with the model-visible name and JSON object
// arguments. It starts an idle server first (bounded by the startup
// timeout and ctx) and bounds the call by the call timeout. A tool error
// (isError) is a Result; a failure to reach the tool is an error naming
// the server. Calling a connect stub waits for the discovery and lists the
// server's tools.
func (h *Host) Call(ctx context.Context, name string, args json.RawMessage) (Result, error) {
	s, tool, ok := h.lookup(name)
	if !ok {
		return Result{}, fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	var params map[string]any
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &params); err != nil {
			return Result{}, fmt.Errorf("%s: the arguments are not a JSON object: %v", name, err)
		}
	}
	c, err := h.ensure(ctx, s)
	if err != nil {
		return Result{}, err
	}
	if tool.stub {
		return h.connectedText(s), nil
	}
	timeout := h.opts.CallTimeout
	if s.cfg.CallTimeout > 0 {
		timeout = s.cfg.CallTimeout
	}
	if d := s.cfg.ToolTimeouts[tool.RawName]; d > 0 {
		timeout = d
	}
	cctx, cancel := context.WithTimeout(c.ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	call := &mcp.CallToolParams{Name: tool.RawName, Arguments: params}
	if h.opts.OnProgress != nil {
		token, end := h.beginProgress(s.cfg.Name, tool.Name)
		defer end()
		call.SetProgressToken(token)
	}
	res, err := c.cs.CallTool(cctx, call)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case cctx.Err() == context.DeadlineExceeded:
			return Result{}, fmt.Errorf("mcp server %q: %s timed out after %s", s.cfg.Name, tool.RawName, timeout)
		case isServerError(err):
			return Result{}, redact.Err(fmt.Errorf("mcp server %q: %s: %w", s.cfg.Name, tool.RawName, err))
		}
		// The server cannot be reached: it is gone.
		return Result{}, errors.New(h.lost(s, c))
	}
	return Result{Text: h.bound(resultText(res)), IsError: res.IsError}, nil
}

func (h *Host) connectedText(s *server) Result {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, t := range s.tools {
		names = append(names, t.Name)
	}
	text := fmt.Sprintf("connected %s — %d tools", s.cfg.Name, len(s.tools))
	if len(names) > 0 {
		text += ": " + strings.Join(names, ", ")
	}
	return Result{Text: text}
}

func (h *Host) bound(text string) string {
	if len(text) <= h.opts.MaxResultBytes {
		return text
	}
	if h.opts.Truncate != nil {
		return h.opts.Truncate(text, h.opts.MaxResultBytes)
	}
	return headTail(text, h.opts.MaxResultBytes)
}

// headTail keeps the first and the last half of limit bytes (on rune
// boundaries) with the marker the agent's run_command uses.
func headTail(s string, limit int) string {
	half := limit / 2
	head, tail := s[:half], s[len(s)-(limit-half):]
	head = strings.ToValidUTF8(head, "")
	tail = strings.ToValidUTF8(tail, "")
	return fmt.Sprintf("%s\n[... %d bytes of output left out ...]\n%s", head, len(s)-len(head)-len(tail), tail)
}

// GetPrompt renders the MCP prompt typed as "/<name> <args…>": args are
// the whitespace-split words, mapped onto the declared arguments in order
// (words beyond the last declared argument join it, space-separated). The
// result is the prompt's messages' text, blank-line separated, to send as
// the user turn. An unknown name wraps ErrUnknown.
func (h *Host) GetPrompt(ctx context.Context, name string, args []string) (string, error) {
	name = strings.TrimPrefix(name, "/")
	var s *server
	var p Prompt
	h.mu.Lock()
	for _, srv := range h.servers {
		for _, q := range srv.visiblePrompts() {
			if q.Name == name {
				s, p = srv, q
			}
		}
	}
	h.mu.Unlock()
	if s == nil {
		return "", fmt.Errorf("%w: /%s", ErrUnknown, name)
	}
	vals := map[string]string{}
	for i, a := range p.Arguments {
		if i >= len(args) {
			if a.Required {
				return "", fmt.Errorf("/%s: missing required argument %q", name, a.Name)
			}
			continue
		}
		vals[a.Name] = args[i]
		if i == len(p.Arguments)-1 && len(args) > i+1 {
			vals[a.Name] = strings.Join(args[i:], " ")
		}
	}
	c, err := h.ensure(ctx, s)
	if err != nil {
		return "", err
	}
	cctx, cancel := context.WithTimeout(c.ctx, h.opts.CallTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := c.cs.GetPrompt(cctx, &mcp.GetPromptParams{Name: p.RawName, Arguments: vals})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if !isServerError(err) && cctx.Err() == nil {
			return "", errors.New(h.lost(s, c))
		}
		return "", redact.Err(fmt.Errorf("mcp server %q: prompt %s: %w", s.cfg.Name, p.RawName, err))
	}
	var parts []string
	for _, m := range res.Messages {
		if t := contentText(m.Content); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n"), nil
}

// Close stops every server (stdio: stdin closed, a 750 ms grace, then the
// process is killed and reaped within 5 s) and waits for all of it. It is
// idempotent; later calls fail with an error saying the host is closed.
// Kill ends every running stdio server's process tree at once, without
// the grace Close grants, and waits up to wait for them to be reaped: for
// a host about to exit whose shutdown budget ran out. Close must still
// run.
func (h *Host) Kill(wait time.Duration) {
	if h == nil {
		return
	}
	h.mu.Lock()
	var procs []Process
	for _, s := range h.servers {
		if s.conn != nil && s.conn.proc != nil {
			procs = append(procs, s.conn.proc)
		}
	}
	h.mu.Unlock()
	for _, p := range procs {
		_ = p.Kill()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for _, p := range procs {
		select {
		case <-p.Exited():
		case <-t.C:
			return
		}
	}
}

func (h *Host) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.wg.Wait()
		return nil
	}
	h.closed = true
	var conns []*conn
	for _, s := range h.servers {
		if s.conn != nil {
			conns = append(conns, s.conn)
			s.conn = nil
		}
		s.state = StateClosed
	}
	var oauths []*oauthHandler
	for _, s := range h.servers {
		if s.oauth != nil {
			oauths = append(oauths, s.oauth)
		}
	}
	h.mu.Unlock()
	h.cancel()
	defer func() {
		for _, o := range oauths {
			o.close()
		}
	}()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.shutdown()
		}()
	}
	wg.Wait()
	h.wg.Wait()
	return nil
}
