package exthost

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
	"github.com/rx-bridge/rx-bridge/internal/slots"
)

// Generation is one runtime build: the sidecars that started, their slot
// claims, the interceptor chain of every hook point, the provider catalog
// and the UI actions. It is immutable once built; a turn pins one with
// Manager.Acquire, and it is shut down only after the manager has swapped
// in a successor and the last pin is released.
type Generation struct {
	ID       int64
	Sidecars []*Sidecar // sorted by plugin id
	Slots    *slots.Registry
	// Providers are the handshake's provider descriptors, in plugin order.
	Providers []PluginProvider
	// Actions are the UI actions the handshakes declared: sorted by name,
	// one per name, labels redacted. Every front end shows and resolves
	// this list (Action).
	Actions extproto.Actions
	// Warnings are optional runtimes that failed and declarations that
	// were left out; all text is redacted.
	Warnings []string
	// Failed are the optional runtimes that failed to start, by plugin
	// id (a *StartError unless the budget ran out before their launch).
	Failed map[string]error
	// StartTime is how long the build took.
	StartTime time.Duration
	// SystemPrompt is the system prompt turns on this generation use:
	// the manager's, as the system_prompt slot owner settled it when the
	// generation was built (Manager.Load).
	SystemPrompt string

	promptKey string // what SystemPrompt depends on; see promptKey

	byID   map[string]*Sidecar
	chains map[extproto.HookPoint][]*Sidecar
	obs    observers

	mu      sync.Mutex
	pins    int
	retired bool
	closed  chan struct{}
}

// PluginProvider is one provider a sidecar declared.
type PluginProvider struct {
	Plugin     string
	Descriptor extproto.ProviderDescriptor
}

// Sidecar returns the running sidecar of plugin id.
func (g *Generation) Sidecar(id string) (*Sidecar, bool) {
	s, ok := g.byID[id]
	return s, ok
}

// Chain returns the interceptors of point in call order: ascending
// manifest priority, then plugin id. It is built from the manifests'
// intercepts, not from what the handshakes subscribed.
func (g *Generation) Chain(point extproto.HookPoint) []*Sidecar { return g.chains[point] }

// Empty reports whether no sidecar runs in g, so callers can skip all
// protocol work.
func (g *Generation) Empty() bool { return len(g.Sidecars) == 0 }

// RequiredClass reports whether failures of s fail the operation: its
// manifest says required, or it owns any slot.
func (g *Generation) RequiredClass(s *Sidecar) bool {
	return s.Plugin.Required || g.Slots.Owns(s.Plugin.ID)
}

func newGeneration(id int64, started []*Sidecar, obs observers) (*Generation, error) {
	obs.warned = &sync.Map{}
	g := &Generation{
		ID:       id,
		Sidecars: started,
		Slots:    &slots.Registry{},
		byID:     make(map[string]*Sidecar, len(started)),
		chains:   make(map[extproto.HookPoint][]*Sidecar),
		closed:   make(chan struct{}),
		obs:      obs,
	}
	slices.SortFunc(g.Sidecars, func(a, b *Sidecar) int { return cmp.Compare(a.Plugin.ID, b.Plugin.ID) })
	for _, s := range g.Sidecars {
		g.byID[s.Plugin.ID] = s
		for _, slot := range s.Plugin.Replaces {
			if err := g.Slots.Claim(slot, s.Plugin.ID); err != nil {
				return nil, err
			}
		}
		for _, pt := range s.Plugin.Intercepts {
			g.chains[pt] = append(g.chains[pt], s)
		}
		g.addDeclarations(s)
	}
	slices.SortStableFunc(g.Actions, func(a, b extproto.Action) int { return cmp.Compare(a.Name(), b.Name()) })
	for pt, chain := range g.chains {
		// Stable: plugin id order (and so registration order) breaks ties.
		slices.SortStableFunc(chain, func(a, b *Sidecar) int { return cmp.Compare(a.Plugin.Priority, b.Plugin.Priority) })
		g.chains[pt] = chain
	}
	return g, nil
}

// addDeclarations collects what the handshake declared: providers whose
// ref is plugin/<id>/<provider>/<model>, and the UI actions — one invalid
// action id rejects that plugin's whole action list (SPEC §7), a repeated
// id keeps the first declaration, labels are redacted.
func (g *Generation) addDeclarations(s *Sidecar) {
	id := s.Plugin.ID
	for _, d := range s.Init.Providers {
		if err := extproto.ValidateProviderRef(d.Ref); err != nil || strings.Count(d.Ref, "/") != 3 {
			g.Warnings = append(g.Warnings, "extension "+id+": provider ref "+strconv.Quote(d.Ref)+" is not plugin/"+id+"/<provider>/<model>; it is left out")
			continue
		}
		g.Providers = append(g.Providers, PluginProvider{Plugin: id, Descriptor: d})
	}
	for _, a := range s.Init.UIActions {
		if !extproto.ValidActionID(a.ActionID) {
			g.Warnings = append(g.Warnings, "extension "+id+": UI action id "+strconv.Quote(a.ActionID)+" does not match ^[a-z0-9-]+$; none of its actions are shown")
			return
		}
	}
	seen := map[string]bool{}
	for _, a := range s.Init.UIActions {
		if seen[a.ActionID] {
			g.Warnings = append(g.Warnings, "extension "+id+": UI action "+strconv.Quote(a.ActionID)+" is declared twice; the first is kept")
			continue
		}
		seen[a.ActionID] = true
		g.Actions = append(g.Actions, extproto.Action{Plugin: id, ActionID: a.ActionID, Label: redact.String(a.Label)})
	}
}

// pin takes a reference; false once the generation retired and closed.
func (g *Generation) pin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.retired && g.pins == 0 {
		return false
	}
	g.pins++
	return true
}

func (g *Generation) unpin(shutdown time.Duration) {
	g.mu.Lock()
	g.pins--
	last := g.retired && g.pins == 0
	g.mu.Unlock()
	if last {
		g.close(shutdown)
	}
}

// retire marks g superseded; it closes now if unpinned, else when the last
// pin goes.
func (g *Generation) retire(shutdown time.Duration) {
	g.mu.Lock()
	g.retired = true
	last := g.pins == 0
	g.mu.Unlock()
	if last {
		g.close(shutdown)
	}
}

// close shuts every sidecar down in parallel and waits for all of them.
func (g *Generation) close(shutdown time.Duration) {
	shutdownAll(g.Sidecars, shutdown)
	close(g.closed)
}

// Closed is closed once every sidecar of g has been shut down.
func (g *Generation) Closed() <-chan struct{} { return g.closed }

func shutdownAll(sidecars []*Sidecar, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, s := range sidecars {
		wg.Go(func() { s.Shutdown(timeout) })
	}
	wg.Wait()
}
