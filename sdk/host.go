package sdk

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
)

// Host is the plugin's handle on the host: the session it serves and the
// extension→host calls (UI and content reads). Every callback's context
// carries it (HostFrom); it stays valid until Serve returns, so a plugin
// may keep it for work it starts itself.
type Host struct {
	s *server
}

// ErrNotReady is returned by host-bound calls made before the handshake
// barrier opened (for instance from OnInitialize): the host would poison
// the connection for them, so they never reach the wire.
var ErrNotReady = errors.New("sdk: not ready: the host has not sent extension/initialized")

// hosts maps each serving connection to its Host. Callbacks get wire's
// own handler context, untouched: wiring the Host in with WithValue would
// cost an allocation per call and hide wire's per-goroutine context
// (which Call uses to keep reading while a handler waits on the host).
var hosts sync.Map // *wire.Conn -> *Host

// HostFrom returns the Host of the Serve call whose callback received ctx
// (or a context derived from it), or nil outside one.
func HostFrom(ctx context.Context) *Host {
	c := wire.ConnFromContext(ctx)
	if c == nil {
		return nil
	}
	h, _ := hosts.Load(c)
	hh, _ := h.(*Host)
	return hh
}

// Session is the session and runtime generation the sidecar serves, from
// extension/initialize. Every UI call carries it.
func (h *Host) Session() extproto.SessionContext { return h.s.init.Session }

// Capabilities is what the host offers (content refs, its UI kind).
func (h *Host) Capabilities() extproto.HostCapabilities { return h.s.init.Capabilities }

// Manifest is what the installed manifest allows this runtime.
func (h *Host) Manifest() extproto.ManifestExpectation { return h.s.init.Manifest }

// call sends one extension→host request and strictly decodes its result
// into *R. Remote errors are *extproto.Error values; a result that does
// not decode is protocol_error.
func call[R any](ctx context.Context, h *Host, method string, params any) (*R, error) {
	if !h.s.opened.Load() {
		return nil, ErrNotReady
	}
	raw, err := h.s.conn.Call(ctx, method, params)
	if err != nil {
		return nil, err
	}
	// raw is the wire's own copy of the result, read by nobody else: big
	// strings (a content page) keep its memory instead of a second copy.
	v, err := extproto.DecodeResultOwned(method, raw)
	if err != nil {
		return nil, err
	}
	r, ok := v.(*R)
	if !ok {
		panic(fmt.Sprintf("sdk: %s result is %T", method, v))
	}
	return r, nil
}

// logFrom returns the Serve call's logger, or one that discards.
func logFrom(ctx context.Context) *slog.Logger {
	if h := HostFrom(ctx); h != nil {
		return h.s.log
	}
	return slog.New(slog.DiscardHandler)
}
