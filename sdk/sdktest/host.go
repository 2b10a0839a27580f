// Package sdktest is a scripted Reasonix host for testing plugins built
// with sdk: it runs the plugin's Serve in-process over real OS
// pipes and talks to it through extproto/wire exactly as a host does —
// handshake, intercepts (externalizing payloads over 64 KiB into its
// content store), events, UI actions and the plugin's UI calls, provider
// streams, and shutdown.
//
// It is test code for plugin authors; it never starts processes and keeps
// everything it records in memory.
package sdktest

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// Deadline bounds every wait of the harness. It is a deadline for a hung
// test, never a threshold a passing test gets near.
const Deadline = 20 * time.Second

// Options configure a Host. The zero value handshakes as session
// "sess-1" in "/repo", generation 7, headless.
type Options struct {
	// Session and Manifest go into extension/initialize.
	Session  extproto.SessionContext
	Manifest extproto.ManifestExpectation
	// NoHandshake leaves the handshake to the test (Initialize,
	// Initialized, or raw Call).
	NoHandshake bool
	// Answer answers the plugin's host/ui/request; nil dismisses every
	// prompt.
	Answer func(*extproto.UIRequestParams) extproto.UIRequestResult
	// Page, if set, may alter each host/content/read page before it is
	// sent (to test a plugin against a misbehaving store).
	Page func(*extproto.ContentReadResult)
	// Serve configures the plugin's side; its transport is ignored.
	Serve sdk.Options
}

// Host is the scripted host of one plugin.
type Host struct {
	t    testing.TB
	opts Options
	// Conn is the host's end of the connection, for raw calls.
	Conn *wire.Conn

	served chan error

	seq atomic.Int64
	ctx context.Context

	mu        sync.Mutex
	published []extproto.UIPublishParams
	requests  []extproto.UIRequestParams
	content   map[string][]byte
	streams   map[string]*Stream
	nextRef   int
}

// Start runs p's Serve on a pair of pipes, connects a host to it and,
// unless opts.NoHandshake, completes the handshake. Cleanup closes the
// plugin's stdin and waits for Serve to return.
func Start(t testing.TB, p *sdk.Plugin, opts Options) *Host {
	t.Helper()
	pluginIn, hostOut := mustPipe(t)
	hostIn, pluginOut := mustPipe(t)
	so := opts.Serve
	so.Stdin, so.Stdout = pluginIn, pluginOut
	if so.Logger == nil {
		so.Logger = testLogger(t)
	}
	served := make(chan error, 1)
	go func() { served <- sdk.Serve(context.Background(), p, so) }()
	return connect(t, hostIn, hostOut, served, opts)
}

// connect attaches a host to a plugin reading hostOut and writing hostIn;
// served receives the plugin's end.
func connect(t testing.TB, hostIn io.ReadCloser, hostOut io.WriteCloser, served chan error, opts Options) *Host {
	t.Helper()
	if opts.Session.SessionID == "" {
		opts.Session = extproto.SessionContext{SessionID: "sess-1", WorkspaceRoot: "/repo", Generation: 7}
	}
	h := &Host{t: t, opts: opts, served: served, content: map[string][]byte{}, streams: map[string]*Stream{}}
	ctx, cancel := context.WithTimeout(context.Background(), Deadline)
	t.Cleanup(cancel)
	h.ctx = ctx
	h.Conn = wire.New(hostIn, hostOut, wire.Options{Handler: h.serveHost, NotifyHandler: h.notified})
	t.Cleanup(h.stop)
	if !opts.NoHandshake {
		if _, err := h.Initialize(); err != nil {
			t.Fatalf("sdktest: handshake: %v", err)
		}
		h.Initialized()
	}
	return h
}

func mustPipe(t testing.TB) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatalf("sdktest: %v", err)
	}
	return r, w
}

// stop ends the plugin the way a host does when it goes away: it closes
// the plugin's stdin and waits for Serve.
func (h *Host) stop() {
	_ = h.Conn.Close()
	select {
	case <-h.served:
	case <-time.After(Deadline):
		h.t.Errorf("sdktest: Serve did not return after the host closed the connection")
	}
}

// Served receives Serve's result (or the process's exit) once it ended.
func (h *Host) Served() <-chan error { return h.served }

// WaitServed waits for Serve to return and gives its result.
func (h *Host) WaitServed() error {
	h.t.Helper()
	select {
	case err := <-h.served:
		h.served <- err // Cleanup waits on it too
		return err
	case <-time.After(Deadline):
		h.t.Fatalf("sdktest: Serve did not return")
		return nil
	}
}

// Ctx is the harness's context: it ends Deadline after Start.
func (h *Host) Ctx() context.Context { return h.ctx }

// Call sends a host→extension request and strictly decodes its result
// into *R (nil for a call that failed).
func Call[R any](h *Host, method string, params any) (*R, error) {
	raw, err := h.Conn.Call(h.Ctx(), method, params)
	if err != nil {
		return nil, err
	}
	v, err := extproto.DecodeResult(method, raw)
	if err != nil {
		return nil, err
	}
	r, ok := v.(*R)
	if !ok {
		return nil, fmt.Errorf("sdktest: %s result is %T", method, v)
	}
	return r, nil
}

// Initialize sends extension/initialize with the configured session and
// manifest.
func (h *Host) Initialize() (*extproto.InitializeResult, error) {
	return Call[extproto.InitializeResult](h, extproto.MethodInitialize, extproto.InitializeParams{
		ProtocolID:      extproto.ProtocolID,
		ProtocolVersion: extproto.ProtocolVersion,
		Manifest:        h.opts.Manifest,
		Session:         h.opts.Session,
		Capabilities:    extproto.HostCapabilities{ContentRefs: true, UIHost: extproto.UIHostHeadless, ProtocolVersion: extproto.ProtocolVersion},
	})
}

// Initialized opens the plugin's barrier.
func (h *Host) Initialized() {
	h.t.Helper()
	if err := h.Conn.Notify(h.Ctx(), extproto.MethodInitialized, extproto.InitializedParams{}); err != nil {
		h.t.Fatalf("sdktest: initialized: %v", err)
	}
}

// Shutdown sends extension/shutdown and waits for Serve to return.
func (h *Host) Shutdown(timeout time.Duration) (*extproto.ShutdownResult, error) {
	res, err := Call[extproto.ShutdownResult](h, extproto.MethodShutdown, extproto.ShutdownParams{TimeoutMillis: timeout.Milliseconds()})
	if err != nil {
		return nil, err
	}
	return res, h.WaitServed()
}
