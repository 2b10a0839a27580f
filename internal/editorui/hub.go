package editorui

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Options configure a Hub.
type Options struct {
	// Editor renders prompts and surfaces. Required.
	Editor Editor
	// Redact masks credentials in every text shown. Required: the hub
	// never shows a sidecar's text unredacted.
	Redact func(string) string
	// SessionID is the session the hub serves; traffic stamped with any
	// other is stale.
	SessionID string
	// Submit delivers the answer of a published form that the hub asked
	// field by field (editors without a native form). Nil leaves such
	// forms to the text fallback.
	Submit func(ctx context.Context, o Origin, values map[string]json.RawMessage) error
	// Warn receives problems the hub cannot return to anyone (an editor
	// that failed to render a surface). Nil drops them.
	Warn func(msg string)
}

// sessionKey carries the agent session a call's UI traffic is attributed
// to (ForSession).
type sessionKey struct{}

// ForSession returns ctx naming agent session id as the one a Request,
// Publish or Pick made with it belongs to: the front end passes on the
// engine's attribution (exthost.SessionOf in a sidecar's UI service);
// "" or no call is session-less. The hub stamps it in Origin.Session.
func ForSession(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionKey{}, id)
}

// SessionFor is the agent session ForSession named in ctx ("" for none).
func SessionFor(ctx context.Context) string {
	id, _ := ctx.Value(sessionKey{}).(string)
	return id
}

// Hub routes one runtime's host UI traffic to an editor, each prompt and
// surface named with the agent session it belongs to (Origin.Session).
type Hub struct {
	opts Options

	mu      sync.Mutex
	gen     int64
	bound   chan struct{} // closed and replaced on every Bind
	actions extproto.Actions
	// prompts are the open prompts, cancelled when a newer generation is
	// bound.
	prompts map[*prompt]struct{}
	// surfaces are the latest surface per (plugin, surface id) of the
	// bound generation; pending holds those of generations still
	// starting, shown once bound.
	surfaces map[surfaceKey]shown
	pending  map[int64][]pendingSurface
	closed   bool

	ctx    context.Context // ends at Close; parent of background work
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type prompt struct {
	gen    int64
	cancel context.CancelFunc
}

// ErrClosed is returned after Close.
var ErrClosed = errors.New("editorui: hub closed")

// NewHub returns a hub bound to generation 0 (no plugins yet).
func NewHub(opts Options) (*Hub, error) {
	if opts.Editor == nil {
		return nil, errors.New("editorui: Options.Editor is required")
	}
	if opts.Redact == nil {
		return nil, errors.New("editorui: Options.Redact is required")
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Hub{
		opts:     opts,
		bound:    make(chan struct{}),
		prompts:  map[*prompt]struct{}{},
		surfaces: map[surfaceKey]shown{},
		pending:  map[int64][]pendingSurface{},
		ctx:      ctx,
		cancel:   cancel,
	}, nil
}

// Generation is the bound generation.
func (h *Hub) Generation() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen
}

// Bind re-binds the hub to generation gen with its action list (the
// generation's, as exthost resolved it; card buttons must name one): the
// prompts and surfaces of older generations are dropped (open prompts
// answer cancelled), and surfaces gen published while it was starting
// are shown. Binding an older generation than the bound one is ignored.
func (h *Hub) Bind(gen int64, actions extproto.Actions) {
	h.mu.Lock()
	if gen < h.gen || h.closed {
		h.mu.Unlock()
		return
	}
	h.gen = gen
	h.actions = slices.Clone(actions)
	for p := range h.prompts {
		if p.gen < gen {
			p.cancel()
		}
	}
	for k, s := range h.surfaces {
		if s.gen < gen {
			delete(h.surfaces, k)
		}
	}
	var flush []pendingSurface
	for g, list := range h.pending {
		if g == gen {
			flush = list
		}
		if g <= gen {
			delete(h.pending, g)
		}
	}
	close(h.bound)
	h.bound = make(chan struct{})
	h.mu.Unlock()
	for _, p := range flush {
		h.show(h.ctx, p.plugin, p.s)
	}
}

// verdict is what the stale gate says about a generation.
type verdict int

const (
	current verdict = iota
	stale
	upcoming
)

func (h *Hub) judge(sessionID string, gen int64) verdict {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.closed || sessionID != h.opts.SessionID || gen < h.gen:
		return stale
	case gen > h.gen:
		return upcoming
	}
	return current
}

// await waits until gen is bound; false when it never will be (a newer one
// was bound, the hub closed or ctx ended).
func (h *Hub) await(ctx context.Context, gen int64) bool {
	for {
		h.mu.Lock()
		cur, bound, closed := h.gen, h.bound, h.closed
		h.mu.Unlock()
		switch {
		case closed || cur > gen:
			return false
		case cur == gen:
			return true
		}
		select {
		case <-bound:
		case <-ctx.Done():
			return false
		}
	}
}

// open registers a prompt of gen; the returned context ends when the
// prompt is superseded. done must be called.
func (h *Hub) open(ctx context.Context, gen int64) (context.Context, func(), bool) {
	ctx, cancel := context.WithCancel(ctx)
	p := &prompt{gen: gen, cancel: cancel}
	h.mu.Lock()
	if h.closed || gen < h.gen {
		h.mu.Unlock()
		cancel()
		return nil, nil, false
	}
	h.prompts[p] = struct{}{}
	h.mu.Unlock()
	stop := context.AfterFunc(h.ctx, cancel)
	return ctx, func() {
		stop()
		cancel()
		h.mu.Lock()
		delete(h.prompts, p)
		h.mu.Unlock()
	}, true
}

// Close cancels every open prompt and background form, waits for them, and
// makes every later call stale.
func (h *Hub) Close() {
	h.mu.Lock()
	h.closed = true
	close(h.bound)
	h.bound = make(chan struct{})
	h.mu.Unlock()
	h.cancel()
	h.wg.Wait()
}

func (h *Hub) warn(msg string) {
	if h.opts.Warn != nil {
		h.opts.Warn(msg)
	}
}
