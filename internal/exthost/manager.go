package exthost

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// generationCounter numbers runtime builds process-wide: first build 1.
var generationCounter atomic.Int64

// ManagerOptions configure a Manager.
type ManagerOptions struct {
	// SessionID and WorkspaceRoot go into every handshake's session.
	SessionID     string
	WorkspaceRoot string
	// SystemPrompt is the host's system prompt for WorkspaceRoot. Every
	// build settles its generation's Generation.SystemPrompt from it,
	// through the system_prompt slot owner if there is one.
	SystemPrompt string
	// Services receive the sidecars' inbound traffic.
	Services Services
	// StartBudget bounds a whole generation build (default 30 s);
	// Parallel bounds concurrent starts (default 4).
	StartBudget time.Duration
	Parallel    int
	// ShutdownTimeout is sent in extension/shutdown (default 5 s).
	ShutdownTimeout time.Duration
	Logger          *slog.Logger
	// Audit receives every audit note (an extension allow that overrode
	// a host deny); the notes also go to Logger at warn level.
	Audit func(note string)
	// Trace, if set, sees every frame of every sidecar (StartOptions.Trace).
	Trace func(plugin string, inbound bool, frame []byte)
}

// Manager owns the running generation and builds the next one beside it.
type Manager struct {
	opts ManagerOptions

	build sync.Mutex // one build at a time
	mu    sync.Mutex
	cur   *Generation
	// all tracks every generation not yet closed, for Close.
	all    map[*Generation]struct{}
	closed bool
	// live tracks every sidecar started and not yet gone, generation or
	// not, for Kill; halt ends the builds in progress when Kill runs.
	live   map[*Sidecar]struct{}
	killed bool
	halt   context.Context
	haltFn context.CancelFunc
}

// NewManager returns a manager with an empty current generation.
func NewManager(opts ManagerOptions) *Manager {
	if opts.StartBudget <= 0 {
		opts.StartBudget = extproto.GenerationStartBudget
	}
	if opts.Parallel <= 0 {
		opts.Parallel = extproto.GenerationParallelStart
	}
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = extproto.ShutdownTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	empty, _ := newGeneration(0, nil, observers{})
	empty.SystemPrompt, empty.promptKey = opts.SystemPrompt, promptKey(empty, opts.SystemPrompt, opts.WorkspaceRoot)
	m := &Manager{opts: opts, cur: empty, all: map[*Generation]struct{}{}, live: map[*Sidecar]struct{}{}}
	m.halt, m.haltFn = context.WithCancel(context.Background())
	return m
}

// ErrManagerClosed is returned by Load after Close.
var ErrManagerClosed = errors.New("exthost: manager is closed")

// Load builds a generation from plugins (the enabled runtime plugins of the
// install records) and swaps it in only if the build fully succeeds: every
// required runtime started and no two plugins claim one slot. A failed
// build leaves the running generation untouched. The superseded
// generation retires once no turn pins it.
func (m *Manager) Load(ctx context.Context, plugins []*Plugin) (*Generation, error) {
	return m.LoadWithPrompt(ctx, plugins, m.opts.SystemPrompt)
}

// LoadWithPrompt is Load with prompt as the host's system prompt of this
// build instead of ManagerOptions.SystemPrompt: a host whose prompt
// depends on what the build serves (the skills index of its packages)
// passes it here, so system_prompt.build shapes it like the rest.
func (m *Manager) LoadWithPrompt(ctx context.Context, plugins []*Plugin, prompt string) (*Generation, error) {
	m.build.Lock()
	defer m.build.Unlock()
	if m.isClosed() {
		return nil, ErrManagerClosed
	}
	began := time.Now()
	id := generationCounter.Add(1)
	started, failed, warnings, err := m.startAll(ctx, id, plugins)
	if err != nil {
		return nil, err
	}
	g, err := newGeneration(id, started, m.observers())
	if err != nil {
		shutdownAll(started, m.opts.ShutdownTimeout)
		return nil, err
	}
	g.Warnings = append(warnings, g.Warnings...)
	if err := m.settlePrompt(ctx, g, prompt); err != nil {
		shutdownAll(started, m.opts.ShutdownTimeout)
		return nil, err
	}
	g.Failed = failed
	g.StartTime = time.Since(began)

	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		shutdownAll(started, m.opts.ShutdownTimeout)
		return nil, ErrManagerClosed
	}
	old := m.cur
	m.cur = g
	m.all[g] = struct{}{}
	m.mu.Unlock()
	m.retire(old)
	return g, nil
}

// settlePrompt runs system_prompt.build for g before it serves a turn, as
// Reasonix does once per runtime build (PROTOCOL_DETAILS §5): only the
// system_prompt owner rules, with the host's prompt; every observer of
// the point then gets the final prompt as an event. A build that changes
// nothing — the same plugins, handshakes, prompt and workspace as the
// running generation — asks nobody and keeps the running prompt byte for
// byte, so a provider's prompt cache survives a reload. An owner that
// fails or blocks fails the build.
func (m *Manager) settlePrompt(ctx context.Context, g *Generation, prompt string) error {
	g.promptKey = promptKey(g, prompt, m.opts.WorkspaceRoot)
	payload := &extproto.SystemPromptBuildPayload{Prompt: prompt, WorkspaceRoot: m.opts.WorkspaceRoot}
	if cur := m.Current(); cur.promptKey == g.promptKey {
		payload.Prompt = cur.SystemPrompt
		g.SystemPrompt = payload.Prompt
		g.Warnings = append(g.Warnings, g.Event(extproto.SystemPromptBuild, payload)...)
		return nil
	}
	out, err := g.Intercept(ctx, extproto.SystemPromptBuild, payload)
	if err != nil {
		return err
	}
	if out.Blocked {
		return fmt.Errorf("extension %s blocked system_prompt.build: %s", out.BlockedBy, out.Reason)
	}
	g.SystemPrompt = out.Payload.(*extproto.SystemPromptBuildPayload).Prompt
	g.Warnings = append(g.Warnings, out.Warnings...)
	return nil
}

// promptKey identifies what a generation's system prompt depends on: the
// host's prompt and workspace, and every sidecar's plugin and handshake.
func promptKey(g *Generation, prompt, workspace string) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	_ = enc.Encode([]string{prompt, workspace})
	for _, s := range g.Sidecars {
		_ = enc.Encode(s.Plugin)
		_ = enc.Encode(s.Init)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type startResult struct {
	s   *Sidecar
	err error
}

// startAll starts plugins through a pool of Parallel workers under one
// shared budget, then consumes the results in plugin order so warnings
// are deterministic.
func (m *Manager) startAll(ctx context.Context, id int64, plugins []*Plugin) ([]*Sidecar, map[string]error, []string, error) {
	plugins = slices.Clone(plugins)
	slices.SortFunc(plugins, func(a, b *Plugin) int { return cmp.Compare(a.ID, b.ID) })
	budget, cancel := context.WithTimeout(ctx, m.opts.StartBudget)
	defer cancel()
	defer context.AfterFunc(m.halt, cancel)()
	results := make([]startResult, len(plugins))
	var eg errgroup.Group
	eg.SetLimit(m.opts.Parallel)
	for i, p := range plugins {
		eg.Go(func() error {
			if err := budget.Err(); err != nil {
				results[i].err = fmt.Errorf("extension generation startup stopped before launch: %w", err)
				return nil
			}
			results[i].s, results[i].err = StartSidecar(budget, p, StartOptions{
				Session:  extproto.SessionContext{SessionID: m.opts.SessionID, WorkspaceRoot: m.opts.WorkspaceRoot, Generation: id},
				Services: m.opts.Services,
				Logger:   m.opts.Logger,
				Trace:    m.opts.Trace,
			})
			if s := results[i].s; s != nil && !m.track(s) {
				s.kill()
			}
			return nil
		})
	}
	_ = eg.Wait()

	var started []*Sidecar
	var warnings []string
	failed := map[string]error{}
	for i, r := range results {
		if r.err == nil {
			started = append(started, r.s)
			continue
		}
		if plugins[i].Required {
			for _, rest := range results {
				if rest.s != nil {
					started = append(started, rest.s)
				}
			}
			shutdownAll(uniq(started), m.opts.ShutdownTimeout)
			return nil, nil, nil, &RequiredError{Plugin: plugins[i].ID, Err: r.err}
		}
		failed[plugins[i].ID] = r.err
		// The warning is returned, not logged: whoever shows the
		// generation's warnings (every front end does, once per build)
		// shows it. Only the stderr tail, which the warning leaves out,
		// is logged here.
		w := fmt.Sprintf("%s: optional extension runtime failed to start: %s", plugins[i].ID, redact.String(r.err.Error()))
		warnings = append(warnings, w)
		if tail := StderrOf(r.err); tail != "" {
			m.opts.Logger.Warn("optional extension runtime stderr", "plugin", plugins[i].ID, "stderr", tail)
		}
	}
	return started, failed, warnings, nil
}

// RequiredError is a generation build failed by a required runtime.
type RequiredError struct {
	Plugin string
	Err    error
}

func (e *RequiredError) Error() string {
	return fmt.Sprintf("required extension runtime %q failed to start: %s", e.Plugin, redact.String(e.Err.Error()))
}
func (e *RequiredError) Unwrap() error { return e.Err }

func (m *Manager) observers() observers {
	log := m.opts.Logger
	return observers{
		warn: func(msg string) { log.Warn(msg) },
		audit: func(note string) {
			log.Warn(note, "audit", true)
			if m.opts.Audit != nil {
				m.opts.Audit(note)
			}
		},
	}
}

// Current returns the running generation without pinning it.
func (m *Manager) Current() *Generation {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cur
}

// Acquire pins the running generation for one turn; release unpins it.
// The generation stays usable until release even if a reload swaps in a
// successor meanwhile.
func (m *Manager) Acquire() (g *Generation, release func()) {
	for {
		m.mu.Lock()
		g = m.cur
		m.mu.Unlock()
		if g.pin() {
			var once sync.Once
			return g, func() { once.Do(func() { g.unpin(m.opts.ShutdownTimeout); m.forget(g) }) }
		}
	}
}

func (m *Manager) retire(g *Generation) {
	g.retire(m.opts.ShutdownTimeout)
	m.forget(g)
}

// forget drops closed generations from the Close set.
func (m *Manager) forget(g *Generation) {
	select {
	case <-g.closed:
		m.mu.Lock()
		delete(m.all, g)
		m.mu.Unlock()
	default:
	}
}

// Close shuts down every sidecar of every generation, pinned or not, in
// parallel, and waits for all of them. It is idempotent.
func (m *Manager) Close() {
	m.build.Lock()
	defer m.build.Unlock()
	m.mu.Lock()
	m.closed = true
	var sidecars []*Sidecar
	for g := range m.all {
		sidecars = append(sidecars, g.Sidecars...)
	}
	sidecars = append(sidecars, m.cur.Sidecars...)
	m.all = map[*Generation]struct{}{}
	m.mu.Unlock()
	shutdownAll(uniq(sidecars), m.opts.ShutdownTimeout)
}

// Kill ends the process tree of every sidecar the manager started, at
// once and without the graceful steps, cancels the builds in progress, and
// waits up to wait for the trees to be gone. It is for a process about to
// exit whose shutdown budget ran out: a Close in progress then returns
// promptly, and Close must still run (or be running) to release the rest.
// After Kill, Load fails with ErrManagerClosed.
func (m *Manager) Kill(wait time.Duration) {
	m.mu.Lock()
	m.killed, m.closed = true, true
	live := make([]*Sidecar, 0, len(m.live))
	for s := range m.live {
		live = append(live, s)
	}
	m.mu.Unlock()
	m.haltFn()
	for _, s := range live {
		s.kill()
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for _, s := range live {
		select {
		case <-s.proc.exited:
		case <-deadline.C:
			return
		}
	}
}

// track records a started sidecar for Kill; false once Kill ran (the
// caller kills it).
func (m *Manager) track(s *Sidecar) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.killed {
		return false
	}
	for x := range m.live {
		select {
		case <-x.proc.exited:
			delete(m.live, x)
		default:
		}
	}
	m.live[s] = struct{}{}
	return true
}

func (m *Manager) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}

func uniq(s []*Sidecar) []*Sidecar {
	seen := make(map[*Sidecar]bool, len(s))
	out := s[:0:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
