// Package pluginrt owns the running plugin runtime of one host process
// (Reasonix calls it a runtime set): the bridge home, the extension host's
// generations, the model catalog of each (built-in and plugin providers),
// its action list, warnings and per-plugin start failures, and the reload
// queue. `rx-bridge serve`, every CLI verb that runs plugins and, through
// them, the agent use it; nothing else assembles a runtime.
//
// Acquire hands out an immutable Snapshot pinned for one turn or request.
// A Set holds no pointer to its user: what a host adds to a build
// (progress, binding its UI to the new generation) it does in
// Options.OnBuild.
package pluginrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/providers/openai"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Options configure a Set.
type Options struct {
	// Home is the bridge home directory. Required.
	Home string
	// SessionID and Workspace (absolute) go into every handshake.
	SessionID string
	Workspace string
	// Roots are the workspace's other folders (a multi-root workspace):
	// the plugins' view of the project (commands, skills, memory, MCP
	// roots) reads them after Workspace. SetFolders changes them for the
	// next build.
	Roots []string
	// SystemPrompt is the host's system prompt for Workspace
	// (exthost.ManagerOptions.SystemPrompt).
	SystemPrompt string
	// Prompt, if set, is the host's system prompt for Workspace and the
	// folders a build reads (SetFolders), in place of SystemPrompt at
	// every build.
	Prompt func(folders []string) string
	// Services receive the sidecars' inbound traffic.
	Services exthost.Services
	// Audit receives every audit note; Logger diagnostics (nil discards);
	// Trace every frame of every sidecar (nil: no tap).
	Audit  func(note string)
	Logger *slog.Logger
	Trace  func(plugin string, inbound bool, frame []byte)
	// Deferred makes Open build no generation: the first Reload does.
	// Until then Acquire serves generation 0, no plugin and the built-in
	// providers.
	Deferred bool
	// OnBuild, if set, runs before every build, under the build lock; an
	// error cancels that build and is its result. after, if not nil,
	// receives the build's outcome, still under the lock, so hosts see
	// builds in order.
	OnBuild func(ctx context.Context) (after func(*Snapshot, error), err error)

	// UserHome is the user's home directory, whose convention folders
	// (~/.claude/commands, ~/.reasonix/skills, …) serve commands and
	// skills beside the plugins'; "" reads none (tests, sandboxes).
	UserHome string
	// ProjectHooks runs the hooks of <Workspace>/.reasonix/settings.json:
	// off unless the user opted in, since opening a repository must not
	// start its programs (hookrun.Sources.ProjectSettings). The home's
	// config.toml [hooks] project = true opts in too (read at each build,
	// so a reload picks a change up).
	ProjectHooks bool
	// MCPNotice receives the MCP servers' notices (a server that failed
	// or crashed, tools that changed); nil drops them.
	MCPNotice func(mcphost.Notice)
	// MCPClient is the editor's side of the MCP client (roots,
	// elicitation, progress, OAuth); its TokenDir defaults to
	// MCPAuthDir under the home when OpenURL is set.
	MCPClient mcphost.Client
}

// Set is the running runtime of one host: a Manager, the snapshot of
// every live generation and the reload queue. Its methods are safe for
// concurrent use.
type Set struct {
	opts Options
	mgr  *exthost.Manager

	foldersMu sync.Mutex
	folders   []string // Options.Roots, as SetFolders last set them

	mu     sync.Mutex
	snaps  map[int64]*Snapshot // every generation not yet closed
	stored chan struct{}       // closed and replaced when snaps changes
	cur    *Snapshot
	failed *Failure // the required runtime that failed the last build
	closed bool

	build  sync.Mutex // one build at a time
	qmu    sync.Mutex
	queued *reloadWait

	// built is closed once the first build has ended, whatever its
	// outcome (at Open unless Deferred), or the set closed; budget bounds
	// how long Ready waits for it (the home's start budget).
	built     chan struct{}
	builtOnce sync.Once
	budget    time.Duration
	// starting is set once the first build is on its way (Starting, or
	// a Reload began): only then has Ready something to wait for.
	starting atomic.Bool
}

// reloadWait is a queued reload; the requests that join it share its
// result.
type reloadWait struct {
	done   chan struct{}
	snap   *Snapshot
	err    error
	joined int // requests that joined it (qmu)
}

// Open loads the home, reads its built-in providers and, unless
// opts.Deferred, builds the first generation. The error of a home that
// cannot be loaded or a first build that fails is returned, with nothing
// left running.
func Open(ctx context.Context, opts Options) (*Set, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	home, err := manifest.LoadHome(opts.Home)
	if err != nil {
		return nil, err
	}
	s := &Set{opts: opts, folders: append([]string(nil), opts.Roots...), snaps: map[int64]*Snapshot{}, stored: make(chan struct{}), built: make(chan struct{}), budget: home.Config.StartupTimeout()}
	s.mgr = exthost.NewManager(exthost.ManagerOptions{
		SessionID:       opts.SessionID,
		WorkspaceRoot:   opts.Workspace,
		SystemPrompt:    opts.SystemPrompt,
		Services:        opts.Services,
		StartBudget:     home.Config.StartupTimeout(),
		ShutdownTimeout: home.Config.ShutdownTimeout(),
		Logger:          opts.Logger,
		Audit:           opts.Audit,
		Trace:           opts.Trace,
	})
	g := s.mgr.Current()
	s.store(s.snapshot(ctx, home, nil, g))
	if !opts.Deferred {
		if _, err := s.Reload(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Acquire pins the running generation for one turn or request and
// returns its snapshot; release unpins it. The snapshot stays usable
// until release even if a reload swaps in a successor meanwhile.
func (s *Set) Acquire() (snap *Snapshot, release func()) {
	g, release := s.mgr.Acquire()
	return s.snapshotOf(g), release
}

// Current is the running snapshot, not pinned: for what describes the
// runtime (models, status), never for a call into a sidecar.
func (s *Set) Current() *Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur
}

// Failures is why each plugin of the running generation that should run
// does not: the optional runtimes that failed its build, and the required
// runtime that failed the last build, if that one failed.
func (s *Set) Failures() map[string]Failure {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Failure, len(s.cur.Failures)+1)
	for id, f := range s.cur.Failures {
		out[id] = f
	}
	if s.failed != nil {
		out[s.failed.Plugin] = *s.failed
	}
	return out
}

// snapshotOf is the snapshot of g, waiting while the build that swapped g
// in is still assembling it.
func (s *Set) snapshotOf(g *exthost.Generation) *Snapshot {
	for {
		s.mu.Lock()
		snap, ok := s.snaps[g.ID]
		wait, closed := s.stored, s.closed
		s.mu.Unlock()
		if ok {
			return snap
		}
		if closed {
			// Close ran before this generation's snapshot was stored: it
			// has no sidecar left to serve a model.
			return &Snapshot{ID: g.ID, Gen: g, Catalog: &providers.Catalog{}, Failures: map[string]Failure{}}
		}
		<-wait
	}
}

// Reload builds the next generation from the install records as they are
// now and swaps it in on full success; on failure the running one stays
// and the error names the plugin. One build runs at a time; a request
// while another waits joins it and shares its result, so at most one is
// queued behind the one running.
func (s *Set) Reload(ctx context.Context) (*Snapshot, error) {
	s.starting.Store(true)
	s.qmu.Lock()
	if w := s.queued; w != nil {
		w.joined++
		s.qmu.Unlock()
		select {
		case <-w.done:
			return w.snap, w.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	w := &reloadWait{done: make(chan struct{})}
	s.queued = w
	s.qmu.Unlock()

	s.build.Lock()
	s.qmu.Lock()
	s.queued = nil // from here on a new request queues behind this one
	s.qmu.Unlock()
	w.snap, w.err = s.buildLocked(ctx)
	s.build.Unlock()
	s.markBuilt()
	close(w.done)
	return w.snap, w.err
}

func (s *Set) markBuilt() { s.builtOnce.Do(func() { close(s.built) }) }

// Starting says the first build of a Deferred set is on its way: a
// host calls it where it decides to build (before starting the Reload
// in the background), so a request read after that decision waits for
// the build in Ready even if the Reload has not begun yet.
func (s *Set) Starting() { s.starting.Store(true) }

// Ready waits until the first build has ended (at once unless the set
// was opened Deferred and its first build is on its way: Starting or a
// Reload), so a request that needs the plugins is served from them and
// not from the empty generation 0. The wait is bounded by the home's
// start budget: past it, or when ctx ends, Ready returns an error saying
// so and the caller serves what is running. With no build on its way
// there is nothing to wait for.
func (s *Set) Ready(ctx context.Context) error {
	select {
	case <-s.built:
		return nil
	default:
	}
	if !s.starting.Load() {
		return nil
	}
	t := time.NewTimer(s.budget)
	defer t.Stop()
	select {
	case <-s.built:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return fmt.Errorf("the plugins have not started within the start budget (%s)", s.budget)
	}
}

func (s *Set) buildLocked(ctx context.Context) (*Snapshot, error) {
	var after func(*Snapshot, error)
	if s.opts.OnBuild != nil {
		var err error
		if after, err = s.opts.OnBuild(ctx); err != nil {
			return nil, err
		}
	}
	snap, err := s.load(ctx)
	if after != nil {
		after(snap, err)
	}
	return snap, err
}

// load re-reads the home and builds a generation from it.
func (s *Set) load(ctx context.Context) (*Snapshot, error) {
	home, err := manifest.LoadHome(s.opts.Home)
	if err != nil {
		return nil, fmt.Errorf("loading the bridge home: %w", err)
	}
	plugins, problems := exthost.PluginsFromHome(home)
	// The contents come first: the skills index is part of the prompt
	// system_prompt.build shapes.
	contents, warns := s.loadContents(home)
	g, err := s.mgr.LoadWithPrompt(ctx, plugins, withSkillIndex(s.prompt(), contents.Memory, contents.Markdown))
	if err != nil {
		contents.Close()
		var re *exthost.RequiredError
		if errors.As(err, &re) {
			f := newFailure(re.Plugin, true, re)
			s.mu.Lock()
			s.failed = &f
			s.mu.Unlock()
		}
		return nil, err
	}
	snap := s.snapshot(ctx, home, problems, g)
	snap.Contents = contents
	snap.Warnings = append(warns, snap.Warnings...)
	s.mu.Lock()
	s.failed = nil
	s.mu.Unlock()
	s.store(snap)
	return snap, nil
}

// snapshot assembles g's snapshot: its catalog (the built-ins of home's
// config, then g's plugin providers), actions, warnings and failures.
func (s *Set) snapshot(ctx context.Context, home *manifest.Home, problems []string, g *exthost.Generation) *Snapshot {
	snap := &Snapshot{ID: g.ID, Gen: g, Home: home, Actions: g.Actions, Failures: map[string]Failure{}, session: s.opts.SessionID}
	warnings := append(slices.Clone(home.Warnings), problems...)
	warnings = append(warnings, g.Warnings...)
	cat, release, err := s.catalog(ctx, home, g)
	if err != nil {
		warnings = append(warnings, err.Error())
	}
	snap.Catalog, snap.CatalogErr, snap.release = cat, err, release
	for i := range warnings {
		warnings[i] = redact.String(warnings[i])
	}
	snap.Warnings = warnings
	for id, err := range g.Failed {
		snap.Failures[id] = newFailure(id, false, err)
	}
	return snap
}

// catalog builds g's catalog. Built-ins that cannot be read leave the
// built-ins out; a provider conflict leaves the plugins' providers out
// (the built-ins stay). Either is returned, to become a warning.
func (s *Set) catalog(ctx context.Context, home *manifest.Home, g *exthost.Generation) (*providers.Catalog, func(), error) {
	cat, release, err := builtins(home)
	if err != nil || g.Empty() {
		return cat, release, err
	}
	ctx, cancel := context.WithTimeout(ctx, extproto.HandshakeTimeout)
	defer cancel()
	if err := providers.AddGeneration(ctx, cat, g); err != nil {
		release()
		cat, release, _ = builtins(home)
		return cat, release, fmt.Errorf("the plugin providers of generation %d are left out: %w", g.ID, err)
	}
	return cat, release, nil
}

// builtins is a catalog holding the built-in providers the home's
// config.toml configures ([[providers.openai]]), and their release. This is
// the one place they are read.
func builtins(home *manifest.Home) (*providers.Catalog, func(), error) {
	path := filepath.Join(home.Dir, manifest.ConfigFile)
	cat := &providers.Catalog{}
	var section struct {
		OpenAI []openai.Config `toml:"openai"`
	}
	if err := home.Config.DecodeSection("providers", &section); err != nil {
		return cat, func() {}, fmt.Errorf("built-in providers: %w", err)
	}
	var closers []func()
	release := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	for i, c := range section.OpenAI {
		// A key file named relative to config.toml's folder (what
		// `rx-bridge setup` writes: keys/<name>.key) is in the home.
		if c.APIKeyFile != "" && !filepath.IsAbs(c.APIKeyFile) {
			c.APIKeyFile = filepath.Join(home.Dir, filepath.FromSlash(c.APIKeyFile))
		}
		p, err := openai.New(c)
		if err == nil {
			closers = append(closers, p.Close)
			err = cat.Add(p)
		}
		if err != nil {
			release()
			return &providers.Catalog{}, func() {}, fmt.Errorf("built-in providers: %s: [[providers.openai]] #%d: %w", path, i+1, err)
		}
	}
	return cat, sync.OnceFunc(release), nil
}

// store makes snap the current snapshot and drops the snapshots of
// generations that have shut down, releasing their built-ins.
func (s *Set) store(snap *Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		snap.releaseBuiltins()
		return
	}
	for id, old := range s.snaps {
		select {
		case <-old.Gen.Closed():
			old.releaseBuiltins()
			delete(s.snaps, id)
		default:
		}
	}
	s.snaps[snap.ID] = snap
	s.cur = snap
	close(s.stored)
	s.stored = make(chan struct{})
}

// Kill ends every sidecar process tree at once (exthost.Manager.Kill):
// for a process about to exit whose shutdown budget ran out. Close must
// still run.
func (s *Set) Kill(wait time.Duration) {
	var wg sync.WaitGroup
	for _, c := range s.contents() {
		wg.Go(func() {
			c.Hooks.Close() // kills every hook tree still running
			c.MCP.Kill(wait)
		})
	}
	s.mgr.Kill(wait)
	wg.Wait()
}

// contents are the Contents of every generation not yet closed.
func (s *Set) contents() []*Contents {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*Contents
	for _, snap := range s.snaps {
		if snap.Contents != nil {
			out = append(out, snap.Contents)
		}
	}
	return out
}

// Close shuts every generation down, pinned or not, and releases every
// catalog. It is idempotent. Hooks and MCP servers are shut down beside
// the sidecars, not after them, so a sidecar slow to stop cannot use up
// their share of an exit budget.
func (s *Set) Close() {
	var wg sync.WaitGroup
	for _, c := range s.contents() {
		wg.Go(c.Close)
	}
	s.mgr.Close()
	wg.Wait()
	s.markBuilt()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.stored)
	}
	for id, snap := range s.snaps {
		snap.releaseBuiltins()
		delete(s.snaps, id)
	}
}

// Folders are the workspace's other folders the next build reads
// (Options.Roots, as SetFolders last set them).
func (s *Set) Folders() []string {
	s.foldersMu.Lock()
	defer s.foldersMu.Unlock()
	return append([]string(nil), s.folders...)
}

// SetFolders makes folders the workspace's other folders from the next
// build on: the running generation keeps the commands, skills, memory and
// MCP roots it was built with.
func (s *Set) SetFolders(folders []string) {
	s.foldersMu.Lock()
	s.folders = append([]string(nil), folders...)
	s.foldersMu.Unlock()
}

// prompt is the host's system prompt for the next build.
func (s *Set) prompt() string {
	if s.opts.Prompt != nil {
		return s.opts.Prompt(s.Folders())
	}
	return s.opts.SystemPrompt
}
