// Package lspclient is a small scripted LSP client: it starts a server
// (normally `rx-bridge serve`) as a child process, speaks the base
// protocol to it over the child's stdin and stdout, answers the server's
// requests with handlers the script registers, and records every
// notification so the script can wait for one. The bridge's tests and
// `rx-bridge demo` play the editor with it.
//
// Server requests are answered on goroutines of their own, so a handler
// that takes its time (a slow user at a quick-pick) never holds up the
// notifications behind it — as in a real editor.
package lspclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/rx-bridge/rx-bridge/internal/bridge/internal/lspframe"
)

// Handler answers one server request.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Message is a notification or request the server sent.
type Message struct {
	Method string
	Params json.RawMessage
	At     time.Time
}

// Client is one connection to a server.
type Client struct {
	conn   jsonrpc2.Conn
	stream *lspframe.Stream
	stdin  io.WriteCloser
	cmd    *exec.Cmd

	mu       sync.Mutex
	handlers map[string]Handler
	pending  map[jsonrpc2.ID]context.CancelFunc // server requests being answered
	watch    func(Message)
	log      []Message         // notifications and requests, in arrival order
	dropped  []string          // bodies the stream could not decode
	raw      map[string]string // answers to WriteRaw's requests, by string id
	changed  chan struct{}
	wg       sync.WaitGroup

	exited  chan struct{}
	exitErr error
}

// Start runs cmd with its stdin and stdout connected to the client. The
// child's stderr is left as cmd has it.
func Start(cmd *exec.Cmd) (*Client, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := New(stdout, stdin)
	c.cmd = cmd
	go func() {
		// Wait only after the reader has seen EOF: Wait closes stdout.
		<-c.stream.Done()
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// New connects a client to a server's output r and input w.
func New(r io.Reader, w io.WriteCloser) *Client {
	c := &Client{stdin: w, handlers: map[string]Handler{}, pending: map[jsonrpc2.ID]context.CancelFunc{}, raw: map[string]string{}, changed: make(chan struct{}), exited: make(chan struct{})}
	drop := func(body []byte) {
		c.mu.Lock()
		c.dropped = append(c.dropped, string(body))
		c.signalLocked()
		c.mu.Unlock()
	}
	c.stream = lspframe.New(r, w, w.Close, lspframe.Options{
		OnDrop: func(body []byte, _ error) { drop(body) },
		OnRead: func(body []byte) {
			if unattributed(body) {
				drop(body) // jsonrpc2 would drop it silently
			} else if id, ok := rawAnswerID(body); ok {
				c.mu.Lock()
				c.raw[id] = string(body)
				c.signalLocked()
				c.mu.Unlock()
			}
		},
	})
	c.conn = jsonrpc2.NewConn(c.stream, jsonrpc2.WithCodec(lspframe.Codec{}))
	c.conn.Go(context.Background(), c.handle)
	return c
}

// unattributed reports whether body is an error response with id null:
// the server's answer to input it could not attribute to a request.
func unattributed(body []byte) bool {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && m.Method == nil && len(m.Error) > 0 && string(m.ID) == "null"
}

// rawAnswerID is the id of body when it is an answer under a string id:
// the client's own requests have number ids, so it answers a request
// written with WriteRaw, which jsonrpc2 would drop silently.
func rawAnswerID(body []byte) (string, bool) {
	if !bytes.Contains(body, []byte(`"id":"`)) {
		return "", false
	}
	var m struct {
		ID     any     `json:"id"`
		Method *string `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil || m.Method != nil {
		return "", false
	}
	id, ok := m.ID.(string)
	return id, ok
}

func (c *Client) signalLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Handle registers the answer to a server request method. Requests
// without a handler are answered with null.
func (c *Client) Handle(method string, h Handler) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handlers[method] = h
}

// Watch registers fn to see every notification and request the server
// sends, in arrival order, before any handler runs. It runs on the read
// loop and must return promptly.
func (c *Client) Watch(fn func(Message)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watch = fn
}

// handle records what the server sent; a request is then answered on its
// own goroutine (jsonrpc2.Async), so the read loop goes on.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	m := Message{Method: req.Method(), Params: append(json.RawMessage(nil), req.Params()...), At: time.Now()}
	c.mu.Lock()
	c.log = append(c.log, m)
	c.signalLocked()
	h, watch := c.handlers[m.Method], c.watch
	c.mu.Unlock()
	if watch != nil {
		watch(m)
	}
	if !req.IsCall() {
		if m.Method == "$/cancelRequest" {
			c.cancel(m.Params)
		}
		return nil, nil
	}
	id := req.ID()
	hctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.pending[id] = cancel
	c.mu.Unlock()
	c.wg.Add(1)
	defer func() {
		cancel()
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		c.wg.Done()
	}()
	jsonrpc2.Async(ctx)
	if h == nil {
		return nil, nil
	}
	res, err := h(hctx, m.Params)
	if err != nil {
		var je *jsonrpc2.Error
		if !errors.As(err, &je) {
			je = jsonrpc2.NewError(jsonrpc2.InternalError, err.Error())
		}
		return nil, je
	}
	return res, nil
}

// cancel serves the server's $/cancelRequest: the handler's context ends.
func (c *Client) cancel(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var id jsonrpc2.ID
	var n int64
	var s string
	switch {
	case json.Unmarshal(p.ID, &n) == nil:
		id = jsonrpc2.NewNumberID(n)
	case json.Unmarshal(p.ID, &s) == nil:
		id = jsonrpc2.NewStringID(s)
	default:
		return
	}
	c.mu.Lock()
	cancel := c.pending[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// Call sends a request and decodes the result into result (nil to
// ignore it). A server error is a *jsonrpc2.Error.
// When ctx ends first, the server is sent $/cancelRequest.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if id, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		if n, ok := id.Number(); ok && ctx.Err() != nil {
			_ = c.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": n})
		}
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	return json.Unmarshal(raw, result)
}

// CallAsync sends a request and returns at once; the channel yields its
// result and error.
func (c *Client) CallAsync(ctx context.Context, method string, params any) <-chan Result {
	out := make(chan Result, 1)
	go func() {
		var raw json.RawMessage
		_, err := c.conn.Call(ctx, method, params, &raw)
		out <- Result{Raw: raw, Err: err}
	}()
	return out
}

// Result is the answer to a CallAsync.
type Result struct {
	Raw json.RawMessage
	Err error
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// WriteRaw writes bytes to the server's input as they are, for malformed
// input tests.
func (c *Client) WriteRaw(b []byte) error {
	_, err := c.stdin.Write(b)
	return err
}

// RawAnswer waits for the answer to a request written with WriteRaw
// under the string id and returns its body: requests written together
// reach the server in that order, which Call cannot promise across
// goroutines.
func (c *Client) RawAnswer(ctx context.Context, id string) (string, error) {
	return c.waitBody(ctx, func() (string, bool) {
		body, ok := c.raw[id]
		return body, ok
	})
}

// waitBody waits until get, called with c.mu held, finds a body.
func (c *Client) waitBody(ctx context.Context, get func() (string, bool)) (string, error) {
	for {
		c.mu.Lock()
		body, ok := get()
		ch := c.changed
		c.mu.Unlock()
		if ok {
			return body, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return "", ctx.Err()
		case <-c.stream.Done():
			return "", errors.New("the server closed the connection")
		}
	}
}

// Signal sends sig to the child process.
func (c *Client) Signal(sig os.Signal) error {
	if c.cmd == nil || c.cmd.Process == nil {
		return errors.New("lspclient: no child process")
	}
	return c.cmd.Process.Signal(sig)
}

// CloseInput closes the server's stdin: the editor went away.
func (c *Client) CloseInput() error { return c.stdin.Close() }

// Messages returns what the server sent with method ("" for all), in order.
func (c *Client) Messages(method string) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Message
	for _, m := range c.log {
		if method == "" || m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

// Dropped returns the server bodies the client could not decode and its
// error responses with id null (its answers to malformed input).
func (c *Client) Dropped() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.dropped...)
}

// Wait returns the first message of method after the first skip ones for
// which match (nil: any) holds, waiting until ctx ends.
func (c *Client) Wait(ctx context.Context, method string, match func(json.RawMessage) bool) (Message, error) {
	for {
		c.mu.Lock()
		for _, m := range c.log {
			if m.Method == method && (match == nil || match(m.Params)) {
				c.mu.Unlock()
				return m, nil
			}
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Message{}, fmt.Errorf("waiting for %s: %w", method, ctx.Err())
		case <-c.stream.Done():
			return Message{}, fmt.Errorf("waiting for %s: the server closed the connection", method)
		}
	}
}

// WaitDropped waits until the server sent a body that is not a message
// (its answer to malformed input) and returns it.
func (c *Client) WaitDropped(ctx context.Context) (string, error) {
	return c.waitBody(ctx, func() (string, bool) {
		if len(c.dropped) == 0 {
			return "", false
		}
		return c.dropped[0], true
	})
}

// Exited is closed once the child process has exited.
func (c *Client) Exited() <-chan struct{} { return c.exited }

// ExitCode waits for the child to exit (at most d) and returns its
// status; -1 if it did not exit in time.
func (c *Client) ExitCode(d time.Duration) int {
	select {
	case <-c.exited:
	case <-time.After(d):
		return -1
	}
	var ee *exec.ExitError
	if errors.As(c.exitErr, &ee) {
		return ee.ExitCode()
	}
	if c.exitErr != nil {
		return -1
	}
	return 0
}

// Close closes the connection, kills a child still running, and waits
// for the handlers (whose contexts it cancels).
func (c *Client) Close() {
	c.mu.Lock()
	for _, cancel := range c.pending {
		cancel()
	}
	c.mu.Unlock()
	// The server's input first: conn.Close waits for calls in flight,
	// which end when the server, its input gone, goes.
	_ = c.stdin.Close()
	_ = c.conn.Close()
	if c.cmd != nil && c.cmd.Process != nil {
		select {
		case <-c.exited:
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	}
	c.wg.Wait()
}
