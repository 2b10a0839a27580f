package sdk

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Plugin is what a sidecar serves: its identity and the callbacks it
// registered. The zero value is a valid plugin that answers continue at
// every point. Register everything before Serve (or inside OnInitialize);
// once the handshake is answered the plugin is frozen and registering
// panics, because handlers are then already running concurrently.
type Plugin struct {
	// Name and Version answer the handshake. Empty falls back to
	// Options.Name/Version, then to $REASONIX_PLUGIN_NAME and
	// $REASONIX_PLUGIN_VERSION.
	Name, Version string
	// StateSchemaVersion is the version of the plugin's session state
	// blob; 0 unless the plugin keeps state.
	StateSchemaVersion int
	// Replaces lists the replacement slots the plugin claims in the
	// handshake (each must be in the manifest's runtime.replaces). The
	// owner of a slot is asked through its intercept handler.
	Replaces []string

	mu         sync.Mutex
	frozen     bool
	intercepts map[extproto.HookPoint]InterceptFunc
	events     map[extproto.HookPoint]EventFunc
	actions    []action
	submit     SubmitFunc
	providers  []Provider
	resources  func(ctx context.Context, paths []string)
	initialize func(ctx context.Context, init *extproto.InitializeParams) error
	shutdown   func(ctx context.Context) error
}

// AnyPoint registers a handler for every point without a handler of its
// own: an exact registration always wins over it.
const AnyPoint extproto.HookPoint = "*"

// InterceptFunc rules on one intercept. Returning an error fails the call
// (the host then applies its failure policy); an error caused by the
// call's deadline is answered intercept_timeout.
type InterceptFunc func(ctx context.Context, c *Call) (Decision, error)

// EventFunc observes one event. Events are delivered one at a time in
// arrival order, so a slow observer delays the next event and, when the
// queue of 256 is full, makes the SDK drop events.
type EventFunc func(ctx context.Context, c *Call)

// ActionFunc runs a UI action. The message (or the error's text) is shown
// to the user; an error answers accepted:false.
type ActionFunc func(ctx context.Context, a *extproto.UIActionParams) (message string, err error)

// SubmitFunc receives a published form's submission; an error answers
// accepted:false.
type SubmitFunc func(ctx context.Context, s *extproto.UISubmitParams) error

type action struct {
	decl extproto.UIActionDecl
	fn   ActionFunc
}

// OnIntercept registers fn for point (or AnyPoint). A point without a
// handler is answered continue.
func (p *Plugin) OnIntercept(point extproto.HookPoint, fn InterceptFunc) {
	checkPoint(point)
	p.register(func() {
		if p.intercepts == nil {
			p.intercepts = make(map[extproto.HookPoint]InterceptFunc)
		}
		p.intercepts[point] = fn
	})
}

// OnEvent registers fn to observe point (or AnyPoint).
func (p *Plugin) OnEvent(point extproto.HookPoint, fn EventFunc) {
	checkPoint(point)
	p.register(func() {
		if p.events == nil {
			p.events = make(map[extproto.HookPoint]EventFunc)
		}
		p.events[point] = fn
	})
}

// Action declares a UI action, shown to the user as /<plugin>:<id>. The
// id must match ^[a-z0-9-]+$ (the host rejects a plugin's whole action
// list for one bad id, so this panics instead).
func (p *Plugin) Action(id, label string, fn ActionFunc) {
	if !extproto.ValidActionID(id) {
		panic(fmt.Sprintf("sdk: action id %q does not match ^[a-z0-9-]+$", id))
	}
	p.register(func() {
		if slices.ContainsFunc(p.actions, func(a action) bool { return a.decl.ActionID == id }) {
			panic(fmt.Sprintf("sdk: action %q registered twice", id))
		}
		p.actions = append(p.actions, action{extproto.UIActionDecl{ActionID: id, Label: label}, fn})
	})
}

// OnSubmit registers the receiver of published forms' submissions.
func (p *Plugin) OnSubmit(fn SubmitFunc) { p.register(func() { p.submit = fn }) }

// Provide declares a streaming provider; see Provider.
func (p *Plugin) Provide(prov Provider) {
	if prov.Stream == nil {
		panic("sdk: provider " + prov.Descriptor.Ref + " has no Stream function")
	}
	p.register(func() { p.providers = append(p.providers, prov) })
}

// OnResourcesChanged registers the receiver of extension/resources/changed.
func (p *Plugin) OnResourcesChanged(fn func(ctx context.Context, paths []string)) {
	p.register(func() { p.resources = fn })
}

// OnInitialize registers a hook that sees the host's initialize params
// before the handshake is answered. It may still register handlers. An
// error refuses the handshake and ends Serve with that error.
func (p *Plugin) OnInitialize(fn func(ctx context.Context, init *extproto.InitializeParams) error) {
	p.register(func() { p.initialize = fn })
}

// OnShutdown registers a hook run on extension/shutdown, bounded by the
// host's timeoutMillis (unbounded when 0): ctx ends at the deadline, and
// the answer is sent at the deadline even if the hook has not returned.
func (p *Plugin) OnShutdown(fn func(ctx context.Context) error) {
	p.register(func() { p.shutdown = fn })
}

func (p *Plugin) register(set func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frozen {
		panic("sdk: plugin registration after the handshake was answered")
	}
	set()
}

// freeze ends registration. Afterwards the maps and slices are only read,
// so handlers read them without a lock.
func (p *Plugin) freeze() {
	p.mu.Lock()
	p.frozen = true
	p.mu.Unlock()
}

func checkPoint(point extproto.HookPoint) {
	if point != AnyPoint && !point.Valid() {
		panic(fmt.Sprintf("sdk: unknown hook point %q", point))
	}
}

// interceptFor returns the handler for point: its own, else AnyPoint's.
func (p *Plugin) interceptFor(point extproto.HookPoint) InterceptFunc {
	if fn, ok := p.intercepts[point]; ok {
		return fn
	}
	return p.intercepts[AnyPoint]
}

func (p *Plugin) eventFor(point extproto.HookPoint) EventFunc {
	if fn, ok := p.events[point]; ok {
		return fn
	}
	return p.events[AnyPoint]
}

// subscriptions is what the handshake subscribes: every point with an
// intercept or event handler, in the protocol's order.
func (p *Plugin) subscriptions() []string {
	var out []string
	for _, pt := range extproto.HookPoints {
		_, i := p.intercepts[pt]
		_, e := p.events[pt]
		if i || e {
			out = append(out, string(pt))
		}
	}
	return out
}
