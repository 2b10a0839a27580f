package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// Session is one conversation in one workspace. Its methods are safe for
// concurrent use; one turn runs at a time.
type Session struct {
	a  *Agent
	id string
	// wsp is the session's workspace (tools.Workspace): its primary root
	// is fixed, its other roots change with SetRoots.
	wsp atomic.Pointer[tools.Workspace]
	log *transcript.Log

	// jmu guards st and j. Only the journal changes st, so the goroutine
	// running a turn reads st without it.
	jmu sync.Mutex
	st  state
	j   journal
	// emu serialises the journal's emits.
	emu sync.Mutex

	mu        sync.Mutex
	turn      sync.WaitGroup // the running turn, for Close
	running   bool
	cancel    context.CancelFunc
	closed    bool
	nextModel string           // SetModel during a turn, applied when it ends
	nextWS    *tools.Workspace // SetRoots during a turn, applied when it ends
	// syncing carries the result of the last turn's background fsync.
	syncing chan error

	// effort, approval, mode and mcp are this session's own settings
	// (see SetEffort, SetApproval, SetMode, SetMCP); a turn reads effort
	// and mcp as it starts, approval and mode at each call. All but mcp
	// are stored in the transcript; unstored is set when one changed
	// during a turn and is stored when it ends.
	effort   string
	approval Approval
	mode     Mode
	mcp      *mcphost.Host
	unstored bool

	// grants are the keys of what the user allowed for the rest of the
	// session (grantFor); never stored, dropped by Close.
	grants map[string]bool

	// undo keeps the recent turns' edits for UndoTurn.
	undo undoLog

	// hookContext is the SessionStart hooks' context for the next prompt.
	hookContext []string

	// reported is the provider's prompt-token count for the last request
	// and the history length it covered; compaction estimates from it.
	reported struct{ tokens, upTo int }

	// toolRank is the order of every tool name the session has offered,
	// first offer first: a turn's tools keep it and new ones are
	// appended (turn.toolSet), so the requests' prefix stays the same
	// bytes for a provider's prompt cache. Only the running turn uses it.
	toolRank map[string]int
}

// Errors of a session.
var (
	ErrBusy          = errors.New("agent: a turn is already running in this session")
	ErrSessionClosed = errors.New("agent: the session is closed")
)

func newSession(a *Agent, id string, ws *tools.Workspace, log *transcript.Log) *Session {
	s := &Session{a: a, id: id, log: log}
	s.wsp.Store(ws)
	s.j.s = s
	return s
}

// ws is the session's workspace. A turn sees one: SetRoots during a turn
// takes effect when it ends.
func (s *Session) ws() *tools.Workspace { return s.wsp.Load() }

// Roots are the session's workspace roots, the primary first (symlinks
// resolved).
func (s *Session) Roots() []string { return s.ws().Roots() }

// SetRoots makes more (existing directories) the session's other
// workspace roots beside its primary one, which stays (a root in more
// that is the primary counts once): the editor's workspace folders
// changed. It applies from the next turn; a running turn keeps the roots
// it started with. Permission grants stay: a grant names an absolute
// path or directory, which the boundary checks again at every call.
func (s *Session) SetRoots(more []string) error {
	cur := s.ws()
	if !cur.Local() {
		return nil
	}
	next, err := tools.NewWorkspace(cur.Root, more...)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.running {
		s.nextWS = next
		return nil
	}
	s.wsp.Store(next)
	return nil
}

// ID is the session's id.
func (s *Session) ID() string { return s.id }

// Workspace is the workspace root (symlinks resolved).
func (s *Session) Workspace() string { return s.ws().Root }

// TranscriptPath is the live transcript file.
func (s *Session) TranscriptPath() string { return s.log.Path() }

// Model is the model ref the next turn uses.
func (s *Session) Model() string {
	s.mu.Lock()
	next := s.nextModel
	s.mu.Unlock()
	if next != "" {
		return next
	}
	s.jmu.Lock()
	defer s.jmu.Unlock()
	return s.st.model
}

// History returns a copy of the model history.
func (s *Session) History() []extproto.ProviderMessage {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	return append([]extproto.ProviderMessage(nil), s.st.history...)
}

// Usage sums the provider-reported usage of every round of the session.
func (s *Session) Usage() extproto.ProviderUsage {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	return s.st.usage
}

// Turns is the number of turns so far.
func (s *Session) Turns() int {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	return s.st.turns
}

// SetModel switches the session to model ref from the next turn on; a
// running turn keeps the model it started with.
func (s *Session) SetModel(ref string) error {
	if err := s.a.checkModel(ref); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSessionClosed
	}
	if s.running {
		s.nextModel = ref
		return nil
	}
	return s.commitSettings(ref)
}

// SetEffort sets the reasoning effort of this session's turns from the
// next one on ("" for the model's default). The model must declare it.
// It is stored with the session.
func (s *Session) SetEffort(effort string) error {
	if effort != "" {
		g, release := s.a.opts.Runtime.Acquire()
		m, err := g.Models().Lookup(s.Model())
		release()
		if err != nil {
			return err
		}
		if !slices.Contains(m.Descriptor.Efforts, effort) {
			return fmt.Errorf("model %s has no effort %q", m.Descriptor.Ref, effort)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSessionClosed
	}
	s.effort = effort
	return s.storeLocked()
}

// Effort is the session's reasoning effort ("" for the model's default).
func (s *Session) Effort() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.effort
}

// SetApproval sets this session's approval mode, in place of
// Settings.Approval, from the next permission decision on. It is stored
// with the session.
func (s *Session) SetApproval(mode Approval) error {
	switch mode {
	case ApproveAsk, ApproveAuto, ApproveYolo:
	default:
		return fmt.Errorf("unknown approval mode %q (ask, auto or yolo)", mode)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSessionClosed
	}
	s.approval = mode
	return s.storeLocked()
}

// Approval is the session's approval mode.
func (s *Session) Approval() Approval {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approval != "" {
		return s.approval
	}
	return s.a.opts.Settings.Approval
}

// SetMCP gives the session's turns the tools of h (the session's own MCP
// servers, e.g. an ACP client's) beside the runtime's; nil removes them.
// The caller owns h and closes it after the session.
func (s *Session) SetMCP(h *mcphost.Host) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mcp = h
}

func (s *Session) sessionMCP() *mcphost.Host {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mcp
}

// Cancel stops the running turn, if any; Prompt then returns with
// StopCancelled once the turn has cleaned up.
func (s *Session) Cancel() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// begin marks a turn running and returns its context.
func (s *Session) begin(ctx context.Context) (context.Context, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrSessionClosed
	}
	if s.running {
		return nil, ErrBusy
	}
	if err := s.waitSyncLocked(); err != nil {
		return nil, err
	}
	s.running = true
	s.turn.Add(1)
	s.a.turns.begin()
	// Every call the turn makes into a sidecar serves this session: the
	// plugins' UI traffic it causes is attributed to it (exthost.OnBehalfOf).
	ctx, s.cancel = context.WithCancel(exthost.OnBehalfOf(ctx, s.id))
	return ctx, nil
}

// finish marks the turn over, applies a model change made during it and
// stores the settings changed during it.
func (s *Session) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.turn.Done()
	defer s.a.turns.end()
	s.cancel()
	s.running, s.cancel = false, nil
	if s.nextWS != nil {
		s.wsp.Store(s.nextWS)
		s.nextWS = nil
	}
	if next := s.nextModel; next != "" {
		s.nextModel = ""
		return s.commitSettings(next)
	}
	if s.unstored {
		return s.storeLocked()
	}
	return nil
}

// Close cancels a running turn and waits for it to end, emits
// session.end and releases the transcript. It is idempotent.
func (s *Session) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed, s.grants = true, nil
	// Announced before a concurrent Delete can see s closed: it waits
	// for this close to release the transcript.
	defer s.a.Closing(s.id)()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	s.turn.Wait()
	s.mu.Lock()
	syncErr := s.waitSyncLocked()
	s.mu.Unlock()
	s.a.forget(s)
	s.undo.clear()
	s.a.sessionEndHooks(ctx, s)
	// session.end cannot undo the end; its failures are shown, not
	// returned.
	out, err := s.a.sessionHook(ctx, s.id, &extproto.SessionEndPayload{Phase: extproto.PhaseEnd, SessionPath: s.log.Path()})
	s.warn(out)
	if err != nil {
		s.a.opts.Logger.Warn("session.end failed", "session", s.id, "err", redactErr(err))
	} else if out.Blocked {
		s.a.opts.Logger.Warn("session.end blocked; the session ends anyway", "session", s.id, "plugin", out.BlockedBy, "reason", out.Reason)
	}
	s.j.flush()
	return errors.Join(syncErr, s.j.failure(), s.log.Close())
}

// syncInBackground starts the fsync of what the turn wrote; see save.
func (s *Session) syncInBackground() {
	done := make(chan error, 1)
	s.mu.Lock()
	s.syncing = done
	s.mu.Unlock()
	go func() { done <- s.log.Sync() }()
}

// waitSyncLocked waits for the last background fsync and returns its
// failure; the caller holds s.mu.
func (s *Session) waitSyncLocked() error {
	if s.syncing == nil {
		return nil
	}
	err := <-s.syncing
	s.syncing = nil
	if err != nil {
		return fmt.Errorf("transcript %s: the last turn could not be made durable: %w", s.log.Path(), err)
	}
	return nil
}

// discard undoes a session that never started.
func (s *Session) discard() {
	_ = s.log.Close()
	_ = transcript.Remove(s.a.dir, s.id)
}
