package mcphost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// conn is one live connection to a server: the session and, for stdio,
// the process and the host's ends of its pipes.
type conn struct {
	cs     *mcp.ClientSession
	ctx    context.Context // cancelled at shutdown: ends in-flight calls
	cancel context.CancelFunc
	ended  chan struct{} // closed when the session ends

	proc   Process
	stdin  *os.File
	stdout *os.File
	errR   *os.File
	copied chan struct{} // closed when the stderr copy ends
	stderr *tail

	http *http.Transport

	closing  atomic.Bool
	shutOnce sync.Once
	lostOnce sync.Once
	reason   string

	// list_changed handling (listChanged), guarded by Host.mu.
	relisting, relistQueued bool
	window                  time.Time
	changes                 int
	flooded                 bool
	// why, when set, is why the host stopped the connection: the
	// reason lost reports instead of how it ended.
	why string
}

// shutdown ends the connection and, for stdio, the process: stdin closed,
// closeGrace to exit on its own, then Kill and up to reapBudget for the
// reap. Safe to call more than once and concurrently.
func (c *conn) shutdown() {
	c.shutOnce.Do(func() {
		c.closing.Store(true)
		if c.cancel != nil {
			c.cancel()
		}
		if c.stdin != nil {
			c.stdin.Close()
		}
		closed := make(chan struct{})
		go func() {
			if c.cs != nil {
				_ = c.cs.Close()
			}
			close(closed)
		}()
		if c.proc != nil {
			exited := c.proc.Exited()
			select {
			case <-exited:
			case <-time.After(closeGrace):
				_ = c.proc.Kill()
				select {
				case <-exited:
				case <-time.After(reapBudget):
				}
			}
			// With the process gone its pipe ends are closed, unless
			// something it started holds them: closing ours unblocks the
			// readers either way.
			c.stdout.Close()
			c.errR.Close()
			// Where closing does not interrupt a read (Windows) and a
			// survivor holds the pipe, the copy is abandoned, not awaited.
			select {
			case <-c.copied:
			case <-time.After(closeGrace):
			}
		}
		select {
		case <-closed:
		case <-time.After(closeGrace):
		}
		if c.http != nil {
			c.http.CloseIdleConnections()
		}
	})
}

// dial connects to the server and discovers its tools and prompts within
// ctx (the startup timeout). A connection that exists but failed later is
// returned with the error so the caller can show its stderr and shut it
// down.
// version is the protocol version to offer; "" offers the SDK's newest.
func (h *Host) dial(ctx context.Context, s *server, version string) (*conn, []Tool, []Prompt, error) {
	cfg := s.cfg.expanded(h.opts.Getenv)
	learnSecrets(cfg, h.opts.Workspace)
	c := &conn{stderr: &tail{max: stderrTailBytes}, ended: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(h.ctx)
	var transport mcp.Transport
	switch s.typ {
	case TypeStdio:
		t, err := h.spawn(cfg, c)
		if err != nil {
			c.cancel()
			return nil, nil, nil, err
		}
		transport = t
	default:
		u, err := url.Parse(cfg.URL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			c.cancel()
			return nil, nil, nil, fmt.Errorf("invalid url %q: want an http or https URL", cfg.URL)
		}
		rt := h.opts.HTTPTransport
		if rt == nil {
			c.http = http.DefaultTransport.(*http.Transport).Clone()
			rt = c.http
		}
		client := &http.Client{Transport: &headerTransport{base: rt, origin: origin(u), headers: cfg.Headers}}
		if s.typ == TypeSSE {
			transport = &mcp.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}
		} else {
			st := &mcp.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}
			if h.opts.OpenURL != nil && !hasHeader(cfg.Headers, "Authorization") {
				// OAuth, unless the definition brings its own credentials.
				st.OAuthHandler = h.oauthOf(s, cfg.URL)
			}
			transport = st
		}
	}
	// The workspace folders are the client's roots, the primary one
	// first, as the reference announces its workspace (roots are
	// current up to protocol 2025-11-25 and still served, deprecated,
	// after it).
	roots := h.roots()
	caps := &mcp.ClientCapabilities{}
	if len(roots) > 0 {
		//lint:ignore SA1019 roots are deprecated only from protocol 2026-07-28 on
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	opts := &mcp.ClientOptions{
		Capabilities:                caps,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { h.listChanged(s, c, true) },
		PromptListChangedHandler:    func(context.Context, *mcp.PromptListChangedRequest) { h.listChanged(s, c, true) },
		ResourceListChangedHandler:  func(context.Context, *mcp.ResourceListChangedRequest) { h.listChanged(s, c, false) },
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { h.onProgress(s.cfg.Name, r) },
	}
	if h.opts.Elicit != nil {
		// Form mode only: the editor asks the schema's fields.
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}
		opts.ElicitationHandler = func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return h.elicit(ctx, s.cfg.Name, r)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: clientVersion}, opts)
	if len(roots) > 0 {
		//lint:ignore SA1019 as above
		client.AddRoots(roots...)
	}
	// The transport lives as long as the connection (an SSE stream is a
	// request bound to the context it was opened with); the startup
	// timeout bounds it until discovery is done.
	stop := context.AfterFunc(ctx, c.cancel)
	defer stop()
	cs, err := client.Connect(ctx, lifetime{transport, c.ctx}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return c, nil, nil, err
	}
	c.cs = cs
	go func() {
		_ = cs.Wait()
		close(c.ended)
	}()
	tools, prompts, err := discover(ctx, cs, s.cfg.Name)
	if err != nil {
		return c, nil, nil, err
	}
	return c, tools, prompts, nil
}

// lifetime opens a transport with the connection's context instead of
// the (shorter) one Connect is given.
type lifetime struct {
	mcp.Transport
	ctx context.Context
}

func (l lifetime) Connect(context.Context) (mcp.Connection, error) { return l.Transport.Connect(l.ctx) }

// discover lists the server's tools and (when it has them) prompts.
func discover(ctx context.Context, cs *mcp.ClientSession, server string) ([]Tool, []Prompt, error) {
	var tools []Tool
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("tools/list: %w", err)
		}
		name := ToolName(server, t.Name)
		if seen[name] {
			continue
		}
		seen[name] = true
		schema, err := json.Marshal(t.InputSchema)
		if err != nil || !isObject(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		tool := Tool{Name: name, Server: server, RawName: t.Name, Description: t.Description, InputSchema: schema}
		if a := t.Annotations; a != nil {
			tool.ReadOnly = a.ReadOnlyHint
			tool.Destructive = !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
		} else {
			tool.Destructive = true
		}
		tools = append(tools, tool)
	}
	var prompts []Prompt
	if r := cs.InitializeResult(); r != nil && r.Capabilities != nil && r.Capabilities.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return nil, nil, fmt.Errorf("prompts/list: %w", err)
			}
			q := Prompt{Name: ToolName(server, p.Name), Server: server, RawName: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				q.Arguments = append(q.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			prompts = append(prompts, q)
		}
	}
	return tools, prompts, nil
}

// listChanged handles a server's notifications/{tools,prompts,resources}/
// list_changed on connection c. It runs on the SDK's handler goroutine,
// so it only records the change: at most one re-list runs per connection
// and at most one more is queued behind it (any number of notifications
// while one runs make one more re-list, after it). A server that sends
// more than the limit within listChangedWindow is flooding: it is stopped
// and reported once. The host lists no resources, so
// resources/list_changed only counts toward the limit.
func (h *Host) listChanged(s *server, c *conn, relist bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || c.flooded {
		return
	}
	if limit := h.listChangedLimit(); limit > 0 {
		now := time.Now()
		if c.changes == 0 || now.Sub(c.window) > listChangedWindow {
			c.window, c.changes = now, 0
		}
		c.changes++
		if c.changes > limit {
			c.flooded = true
			c.why = fmt.Sprintf("mcp server %q sent more than %d list_changed notifications within %s; it was stopped (/mcp connect restarts it)",
				s.cfg.Name, limit, listChangedWindow)
			if s.conn == c {
				h.wg.Add(1)
				go func() {
					defer h.wg.Done()
					h.lost(s, c)
				}()
			}
			// Else start sees it once discovery ends.
			return
		}
	}
	if !relist {
		return
	}
	if c.relisting || s.conn != c {
		// Running, or discovery has not published yet: one re-list
		// after it.
		c.relistQueued = true
		return
	}
	h.startRelistLocked(s, c)
}

func (h *Host) listChangedLimit() int {
	if h.opts.listChangedLimit != 0 {
		return h.opts.listChangedLimit
	}
	return defaultListChangedLimit
}

// startRelistLocked starts connection c's one re-list worker; h.mu is
// held.
func (h *Host) startRelistLocked(s *server, c *conn) {
	c.relisting, c.relistQueued = true, false
	// Added under the lock, before Close can start waiting.
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		h.relist(s, c)
	}()
}

// relist re-lists a ready server's tools and prompts after it announced
// a change of either, again while another change was announced during
// the last re-list, and tells the user only when what the model sees
// changed. A pinned (cached) tool set stays what the model sees. Each
// list is bounded by the startup timeout and ends with the connection.
func (h *Host) relist(s *server, c *conn) {
	for {
		ctx, cancel := context.WithTimeout(c.ctx, h.startupTimeout(s.cfg))
		tools, prompts, err := discover(ctx, c.cs, s.cfg.Name)
		cancel()
		h.mu.Lock()
		var notice *Notice
		if err == nil && s.conn == c {
			toolsChanged := !slices.EqualFunc(s.tools, tools, sameTool)
			promptsChanged := !slices.EqualFunc(s.prompts, prompts, samePrompt)
			s.tools, s.prompts = tools, prompts
			switch {
			case toolsChanged && s.pinned == nil:
				notice = &Notice{Server: s.cfg.Name, Text: locale.T("%s now has %d tools", s.cfg.Name, len(tools)), ToolsChanged: true}
			case promptsChanged:
				notice = &Notice{Server: s.cfg.Name, Text: locale.T("%s now has %d prompts", s.cfg.Name, len(prompts)), ToolsChanged: true}
			}
		}
		again := c.relistQueued && s.conn == c && c.ctx.Err() == nil && !h.closed
		c.relistQueued = false
		c.relisting = again
		h.mu.Unlock()
		if notice != nil {
			h.notify(*notice)
		}
		if !again {
			return
		}
	}
}

func sameTool(a, b Tool) bool {
	return a.Name == b.Name && a.RawName == b.RawName && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema) &&
		a.ReadOnly == b.ReadOnly && a.Destructive == b.Destructive
}

func samePrompt(a, b Prompt) bool {
	return a.Name == b.Name && a.RawName == b.RawName && a.Description == b.Description && slices.Equal(a.Arguments, b.Arguments)
}

// spawn starts a stdio server through the Spawner on pipes the host owns.
func (h *Host) spawn(cfg Server, c *conn) (mcp.Transport, error) {
	env := envList(os.Environ(), cfg.Env)
	path, err := lookPath(cfg.Name, cfg.Command, env, cfg.Dir)
	if err != nil {
		return nil, err
	}
	var files []*os.File
	pipe := func() (r, w *os.File) {
		if err != nil {
			return nil, nil
		}
		r, w, err = os.Pipe()
		files = append(files, r, w)
		return r, w
	}
	inR, inW := pipe()
	outR, outW := pipe()
	errR, errW := pipe()
	if err != nil {
		closeAll(files)
		return nil, err
	}
	proc, err := h.opts.Spawn(Command{Path: path, Args: cfg.Args, Env: env, Dir: cfg.Dir, Stdin: inR, Stdout: outW, Stderr: errW})
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		closeAll([]*os.File{inW, outR, errR})
		return nil, fmt.Errorf("cannot start %s: %w", cfg.Command, err)
	}
	c.proc, c.stdin, c.stdout, c.errR = proc, inW, outR, errR
	c.copied = make(chan struct{})
	go func() {
		defer close(c.copied)
		_, _ = io.Copy(c.stderr, errR)
	}()
	// Closing the connection closes stdin only; stdout is closed by
	// shutdown once the process is gone.
	return &mcp.IOTransport{Reader: io.NopCloser(outR), Writer: inW}, nil
}

func closeAll(fs []*os.File) {
	for _, f := range fs {
		if f != nil {
			f.Close()
		}
	}
}

// headerTransport adds the configured headers and keeps every request on
// the configured origin: an SSE endpoint event naming another origin is
// rejected, and the headers (often credentials) never leave it.
type headerTransport struct {
	base    http.RoundTripper
	origin  string
	headers map[string]string
}

func (t *headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if o := origin(r.URL); o != t.origin {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, fmt.Errorf("refusing a request to %s: the server's endpoint is on %s", o, t.origin)
	}
	if len(t.headers) > 0 {
		r = r.Clone(r.Context())
		for k, v := range t.headers {
			r.Header.Set(k, v)
		}
	}
	return t.base.RoundTrip(r)
}

func hasHeader(headers map[string]string, name string) bool {
	for k := range headers {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// isServerError reports an error the server answered with (a JSON-RPC
// error), as opposed to a failure to reach it.
func isServerError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// resultText renders a tool result for the model: text as is, other
// content as a short description, structured content as JSON when there
// is nothing else.
func resultText(r *mcp.CallToolResult) string {
	t := contentText(r.Content...)
	if t == "" && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			t = string(b)
		}
	}
	return t
}

func contentText(cs ...mcp.Content) string {
	var parts []string
	for _, c := range cs {
		switch v := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, v.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", v.URI))
		case *mcp.EmbeddedResource:
			switch {
			case v.Resource == nil:
			case v.Resource.Text != "":
				parts = append(parts, v.Resource.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource %s, %d bytes]", v.Resource.URI, len(v.Resource.Blob)))
			}
		case nil:
		default:
			if b, err := json.Marshal(v); err == nil {
				parts = append(parts, string(b))
			}
		}
	}
	return strings.Join(parts, "\n")
}
