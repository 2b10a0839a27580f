package bridge

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/agent"
	"github.com/rx-bridge/rx-bridge/exthost"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/manifest"
	"github.com/rx-bridge/rx-bridge/providers"
	"github.com/rx-bridge/rx-bridge/redact"
)

// runtime is the plugin side of one connection: the extension host's
// generations, the model catalog of each, and the reload queue.
type runtime struct {
	s   *Server
	mgr *exthost.Manager

	mu       sync.Mutex
	home     *manifest.Home
	catalogs map[int64]catalogEntry
	gens     []*exthost.Generation   // those with a catalog
	warnings []string                // of the current generation, redacted
	failures map[string]startFailure // plugin -> why it did not start
	status   *statusWriter

	load   sync.Mutex // one build at a time
	qmu    sync.Mutex
	queued *reloadWait
}

// catalogEntry is one generation's catalog and the release of its
// built-in providers.
type catalogEntry struct {
	cat     *providers.Catalog
	release func()
}

// reloadWait is a queued reload; requests that join it share its result.
type reloadWait struct {
	done     chan struct{}
	gen      *exthost.Generation
	warnings []string
	err      error
}

func newRuntime(s *Server, home *manifest.Home) (*runtime, error) {
	r := &runtime{s: s, home: home, catalogs: map[int64]catalogEntry{}, failures: map[string]startFailure{}}
	r.mgr = exthost.NewManager(exthost.ManagerOptions{
		SessionID:       s.session,
		WorkspaceRoot:   s.workspace,
		SystemPrompt:    agent.DefaultSystemPrompt(s.workspace),
		Services:        s.services(),
		StartBudget:     home.Config.StartupTimeout(),
		ShutdownTimeout: home.Config.ShutdownTimeout(),
		Logger:          s.log,
		Trace:           s.traceWire,
	})
	r.status = newStatusWriter(s)
	return r, nil
}

// catalog returns the models a generation serves: the built-ins plus its
// plugins' providers. nil means the current generation.
func (r *runtime) catalog(g *exthost.Generation) *providers.Catalog {
	if g == nil {
		g = r.mgr.Current()
	}
	r.mu.Lock()
	e, ok := r.catalogs[g.ID]
	home := r.home
	r.mu.Unlock()
	if ok {
		return e.cat
	}
	e, err := r.build(home.Config, g)
	if err != nil {
		r.s.log.Warn(redact.String(err.Error()))
	}
	return r.keep(g, e)
}

// keep records a generation's catalog; a racing build of the same one
// loses and is released.
func (r *runtime) keep(g *exthost.Generation, e catalogEntry) *providers.Catalog {
	r.mu.Lock()
	defer r.mu.Unlock()
	if have, ok := r.catalogs[g.ID]; ok {
		e.release()
		return have.cat
	}
	r.catalogs[g.ID] = e
	r.gens = append(r.gens, g)
	live := r.gens[:0]
	for _, old := range r.gens {
		select {
		case <-old.Closed():
			r.catalogs[old.ID].release()
			delete(r.catalogs, old.ID)
		default:
			live = append(live, old)
		}
	}
	r.gens = live
	return e.cat
}

// build makes a generation's catalog. A provider conflict leaves the
// plugins' providers out (the built-ins stay) and is returned.
func (r *runtime) build(cfg *manifest.Config, g *exthost.Generation) (catalogEntry, error) {
	e, err := r.builtins(cfg)
	if err != nil || g.Empty() {
		return e, err
	}
	ctx, cancel := context.WithTimeout(r.s.ctx, extproto.HandshakeTimeout)
	defer cancel()
	if err := providers.AddGeneration(ctx, e.cat, g); err != nil {
		e.release()
		e, _ = r.builtins(cfg)
		return e, fmt.Errorf("the plugin providers of generation %d are left out: %w", g.ID, err)
	}
	return e, nil
}

// builtins is a catalog holding the configured built-in providers.
func (r *runtime) builtins(cfg *manifest.Config) (catalogEntry, error) {
	e := catalogEntry{cat: &providers.Catalog{}, release: func() {}}
	if r.s.opts.Builtins == nil {
		return e, nil
	}
	release, err := r.s.opts.Builtins(cfg, e.cat)
	if release != nil {
		e.release = sync.OnceFunc(release)
	}
	if err != nil {
		e.release()
		return catalogEntry{cat: &providers.Catalog{}, release: func() {}}, fmt.Errorf("built-in providers: %w", err)
	}
	return e, nil
}

// models adapts catalog for agent.Options.Models.
func (r *runtime) models(g *exthost.Generation) agent.Models { return r.catalog(g) }

// reload builds the next generation once every agent session is idle. A
// request while another waits joins it; so at most one is queued behind
// the one running.
func (r *runtime) reload(ctx context.Context) (*exthost.Generation, []string, error) {
	r.qmu.Lock()
	if w := r.queued; w != nil {
		r.qmu.Unlock()
		select {
		case <-w.done:
			return w.gen, w.warnings, w.err
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
	w := &reloadWait{done: make(chan struct{})}
	r.queued = w
	r.qmu.Unlock()

	r.load.Lock()
	r.qmu.Lock()
	r.queued = nil // from here on a new request queues behind this one
	r.qmu.Unlock()
	if err := r.s.turns.idle(ctx); err != nil {
		w.err = err
	} else {
		w.gen, w.warnings, w.err = r.loadLocked(ctx)
	}
	r.load.Unlock()
	close(w.done)
	return w.gen, w.warnings, w.err
}

// start builds the first generation after initialized.
func (r *runtime) start(ctx context.Context) error {
	r.load.Lock()
	defer r.load.Unlock()
	_, _, err := r.loadLocked(ctx)
	return err
}

// loadLocked re-reads the install records and swaps in a new generation
// on full success; on failure the running one stays and the error names
// the plugin.
func (r *runtime) loadLocked(ctx context.Context) (*exthost.Generation, []string, error) {
	done := r.s.beginProgress("Reasonix: starting plugins")
	home, err := manifest.LoadHome(r.s.opts.Home)
	if err != nil {
		done("failed")
		return nil, nil, fmt.Errorf("loading the bridge home: %w", err)
	}
	plugins, problems := exthost.PluginsFromHome(home)
	g, err := r.mgr.Load(ctx, plugins)
	if err != nil {
		done("failed")
		r.recordFailure(err)
		r.status.update()
		if tail := exthost.StderrOf(err); tail != "" {
			r.s.log.Error(redact.String(err.Error()), "stderr", tail)
		} else {
			r.s.log.Error(redact.String(err.Error()))
		}
		return nil, nil, err
	}
	warnings := append(slices.Clone(home.Warnings), problems...)
	warnings = append(warnings, g.Warnings...)
	cat, err := r.build(home.Config, g)
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	for i := range warnings {
		warnings[i] = redact.String(warnings[i])
	}
	r.mu.Lock()
	r.home = home
	r.warnings = warnings
	r.failures = failuresOf(g)
	r.mu.Unlock()
	r.keep(g, cat)
	r.status.update()
	for _, w := range warnings {
		r.s.log.Warn(w)
	}
	r.s.hub.Bind(g.ID, g.Actions)
	r.s.actionsChanged(g, warnings)
	done(fmt.Sprintf("generation %d: %d plugin(s)", g.ID, len(g.Sidecars)))
	return g, warnings, nil
}

// startFailure is why a plugin did not start: one redacted line, when,
// and the redacted stderr tail of the attempt.
type startFailure struct {
	err    string
	at     time.Time
	stderr string
}

func newStartFailure(err error) startFailure {
	f := startFailure{err: redact.String(err.Error()), at: time.Now(), stderr: exthost.StderrOf(err)}
	var se *exthost.StartError
	if errors.As(err, &se) {
		f.at = se.At
	}
	return f
}

// recordFailure remembers which plugin failed a build.
func (r *runtime) recordFailure(err error) {
	var re *exthost.RequiredError
	if errors.As(err, &re) {
		r.mu.Lock()
		r.failures[re.Plugin] = newStartFailure(re)
		r.mu.Unlock()
	}
}

// failuresOf is the start failure of each optional plugin of g that did
// not start.
func failuresOf(g *exthost.Generation) map[string]startFailure {
	out := make(map[string]startFailure, len(g.Failed))
	for id, err := range g.Failed {
		// The text of the build's warning (Manager.startAll).
		out[id] = newStartFailure(fmt.Errorf("%s: optional extension runtime failed to start: %w", id, err))
	}
	return out
}

// hookPoints are the points some plugin of g intercepts.
func hookPoints(g *exthost.Generation) []string {
	out := []string{}
	for _, pt := range extproto.HookPoints {
		if len(g.Chain(pt)) > 0 {
			out = append(out, string(pt))
		}
	}
	return out
}

func (r *runtime) close() {
	r.status.close()
	r.mgr.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, e := range r.catalogs {
		e.release()
		delete(r.catalogs, id)
	}
	r.gens = nil
}

// startPlugins runs after initialized.
func (s *Server) startPlugins(ctx context.Context) {
	if err := s.rt.start(ctx); err != nil {
		s.log.Error("plugins did not start: " + redact.String(err.Error()))
	}
}
