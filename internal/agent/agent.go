package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// SessionsDir is the directory of the bridge home holding transcripts.
const SessionsDir = "sessions"

// Agent owns the open sessions of one editor connection. Sessions are
// isolated from each other: each has its own workspace, history,
// transcript and turn, and many run at once.
type Agent struct {
	opts Options
	dir  string

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
	// closing holds, per session id, the closes under way or announced
	// (see Closing): a Load or Delete of the id waits for them, so a close
	// followed by a load never finds the transcript still held.
	closing map[string]*closeWait
	// turns counts the turns running in every session (Idle, Busy).
	turns turnGate
	// undoGate is held shared by every Prompt from before its turn
	// begins to after it ends, and exclusively by an UndoTurn, which
	// fails rather than wait for it: a turn that starts during an undo
	// waits for it. undoing makes undos wait for each other.
	undoGate sync.RWMutex
	undoing  sync.Mutex
}

// closeWait is the closes of one session id under way; done is closed
// when the last ends.
type closeWait struct {
	n    int
	done chan struct{}
}

// Errors of the session registry.
var (
	ErrClosed      = errors.New("agent: closed")
	ErrSessionOpen = errors.New("agent: the session is already open")
	ErrNoSession   = errors.New("agent: no such session")
	// ErrInvalid is a request the registry refuses as malformed.
	ErrInvalid = errors.New("agent: invalid request")
	// ErrNoModel is a prompt in a session without a model when the home
	// configures none (a fresh home): the session exists, the first
	// prompt says the one step that fixes it.
	ErrNoModel error = noModelError{}
)

// noModelError is ErrNoModel: its text is in the user's language.
type noModelError struct{}

func (noModelError) Error() string {
	return locale.T("no model is configured: run `rx-bridge setup` in a terminal to pick a provider and model (or set model in config.toml)")
}

// NewAgent returns an agent with no session open.
func NewAgent(opts Options) (*Agent, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	a := &Agent{opts: opts, dir: filepath.Join(opts.Home, SessionsDir), sessions: map[string]*Session{}, closing: map[string]*closeWait{}}
	a.turns.init()
	return a, nil
}

// Idle waits until no turn runs in any session (or ctx ends): a reload
// of the plugins waits here, so a running turn keeps the generation it
// started on to its end and the next turn starts on the new one.
func (a *Agent) Idle(ctx context.Context) error { return a.turns.idle(ctx) }

// Busy reports whether a turn runs in some session.
func (a *Agent) Busy() bool { return a.turns.busy() }

// Hold counts as a running turn until release: Idle waits for it, Busy
// reports it. For work beside the turns that must not overlap a reload
// (and for tests that stand in for a turn).
func (a *Agent) Hold() (release func()) {
	a.turns.begin()
	return sync.OnceFunc(a.turns.end)
}

// New starts a session in workspace with model (a catalog ref). An empty
// model means the workspace's .rx-bridge.toml model, else the config's;
// when neither names one (a fresh home) the session starts without a
// model and its first prompt fails with ErrNoModel, unless a model has
// been configured by then. session.start runs before New returns; a
// block refuses the session. more are the workspace's other roots (a
// multi-root workspace; tools.NewWorkspace): workspace is the primary
// one, which the transcript records and relative paths resolve against.
func (a *Agent) New(ctx context.Context, workspace, model string, more ...string) (*Session, error) {
	ws, err := tools.NewWorkspace(workspace, more...)
	if err != nil {
		return nil, err
	}
	if model == "" {
		if model, err = a.defaultModel(ws); err != nil && !errors.Is(err, ErrNoModel) {
			return nil, err
		}
	}
	if model != "" {
		if err := a.checkModel(model); err != nil {
			return nil, err
		}
	}
	id, err := newID(a.opts.Now())
	if err != nil {
		return nil, err
	}
	log, err := transcript.Create(a.dir, id)
	if err != nil {
		return nil, err
	}
	s := newSession(a, id, ws, log)
	s.j.commit(&record{Type: recSession, Header: &header{Version: transcriptVersion, ID: id, Workspace: ws.Root, Roots: ws.Roots()[1:], Model: model, Created: a.opts.Now().UTC()}})
	s.j.checkpoint()
	if err := s.j.failure(); err != nil {
		s.discard()
		return nil, err
	}
	a.sessionStartHooks(ctx, s)
	out, err := a.sessionHook(ctx, id, &extproto.SessionStartPayload{Phase: extproto.PhaseStart, SessionPath: log.Path()})
	s.warn(out)
	if err == nil && out.Blocked {
		err = fmt.Errorf("extension %s refused to start the session: %s", out.BlockedBy, out.Reason)
	}
	if err == nil {
		err = log.Sync()
	}
	if err != nil {
		s.discard()
		return nil, err
	}
	if err := a.register(s); err != nil {
		s.discard()
		return nil, err
	}
	return s, nil
}

// defaultModel is the workspace's model, else the home config's. A
// workspace that is not a local folder has no file to name one.
func (a *Agent) defaultModel(ws *tools.Workspace) (string, error) {
	if ws.Local() && a.opts.WorkspaceModel != nil {
		m, err := a.opts.WorkspaceModel(ws.Root)
		if err != nil {
			return "", err
		}
		if m != "" {
			return m, nil
		}
	}
	if a.opts.Settings.Model != "" {
		return a.opts.Settings.Model, nil
	}
	if a.opts.ConfigModel != nil {
		if m := a.opts.ConfigModel(); m != "" {
			return m, nil
		}
	}
	return "", ErrNoModel
}

// checkModel resolves ref in the current generation's catalog; a ref
// nobody serves is an error listing the ones that exist.
func (a *Agent) checkModel(ref string) error {
	p, release := a.opts.Runtime.Acquire()
	defer release()
	_, err := p.Models().Lookup(ref)
	return err
}

func (a *Agent) register(s *Session) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	if _, open := a.sessions[s.id]; open {
		return fmt.Errorf("%w: %s", ErrSessionOpen, s.id)
	}
	a.sessions[s.id] = s
	return nil
}

func (a *Agent) forget(s *Session) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[s.id] == s {
		delete(a.sessions, s.id)
	}
}

// Closing announces a close of session id: Load and Delete of id wait
// until end is called. Session.Close announces its own; a caller that
// knows the order of requests before it runs them (the bridge's read
// loop) announces a close as it reads it, so a load read after it waits
// for it even if it starts first.
func (a *Agent) Closing(id string) (end func()) {
	a.mu.Lock()
	w := a.closing[id]
	if w == nil {
		w = &closeWait{done: make(chan struct{})}
		a.closing[id] = w
	}
	w.n++
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			defer a.mu.Unlock()
			if w.n--; w.n == 0 {
				delete(a.closing, id)
				close(w.done)
			}
		})
	}
}

// settle waits for the closes of session id under way, if any.
func (a *Agent) settle(ctx context.Context, id string) error {
	a.mu.Lock()
	w := a.closing[id]
	a.mu.Unlock()
	if w == nil {
		return nil
	}
	select {
	case <-w.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("session %s is still closing: %w", id, ctx.Err())
	}
}

// Session returns the open session id.
func (a *Agent) Session(id string) (*Session, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[id]
	return s, ok
}

// sessionHook runs a session.* point of session id outside a turn, on
// the current generation, on behalf of that session.
func (a *Agent) sessionHook(ctx context.Context, id string, p extproto.Payload) (exthost.Outcome, error) {
	pinned, release := a.opts.Runtime.Acquire()
	defer release()
	return pinned.Intercept(exthost.OnBehalfOf(ctx, id), p.Point(), p)
}

// warn shows an outcome's warnings as notices of the session.
func (s *Session) warn(out exthost.Outcome) {
	for _, w := range out.Warnings {
		s.j.emit(Update{Kind: UpdateNotice, Turn: s.st.turns, Notice: &Notice{Kind: NoticeWarning, Point: out.Point, Text: w}})
	}
}

// Info describes a stored session.
type Info struct {
	ID        string
	Workspace string
	// Roots are the other workspace roots the session started with (an
	// open session's: those it has now).
	Roots []string
	// Model is an open session's model; for one not open, the model its
	// header or a settings change among its first records names (a
	// transcript is not read whole to list it).
	Model   string
	Created time.Time
	// Updated is when the transcript last changed.
	Updated time.Time
	// Title is the start of the first prompt.
	Title string
	Open  bool
}

// List describes the stored sessions of workspace ("" for all), newest
// first. Transcripts that cannot be read are skipped.
func (a *Agent) List(workspace string) ([]Info, error) {
	root := ""
	if workspace != "" {
		ws, err := tools.NewWorkspace(workspace)
		if err != nil {
			return nil, err
		}
		root = ws.Root
	}
	ids, err := transcript.List(a.dir)
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, id := range ids {
		info, err := a.info(id)
		if err != nil || (root != "" && info.Workspace != root) {
			continue
		}
		if s, open := a.Session(id); open {
			info.Open, info.Model, info.Roots = true, s.Model(), s.Roots()[1:]
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(x, y Info) int { return y.Updated.Compare(x.Updated) })
	return out, nil
}

// info reads a session's header and title from the head of its records.
func (a *Agent) info(id string) (Info, error) {
	raws, err := transcript.Head(a.dir, id, 64)
	if err != nil {
		return Info{}, err
	}
	var info Info
	for i, raw := range raws {
		if info.Title != "" && !bytes.HasPrefix(raw, []byte(`{"type":"model"`)) {
			continue // only settings changes matter now: skip the decode
		}
		r, err := decodeRecord(raw)
		if err != nil {
			return Info{}, err
		}
		if i == 0 {
			if r.Type != recSession || r.Header == nil {
				return Info{}, fmt.Errorf("session %s has no header", id)
			}
			h := r.Header
			info = Info{ID: h.ID, Workspace: h.Workspace, Roots: h.Roots, Model: h.Model, Created: h.Created}
			continue
		}
		switch {
		case r.Type == recUpdate && r.Update != nil && r.Update.Kind == UpdateUserMessage && info.Title == "":
			info.Title = title(r.Update.Text)
		case r.Type == recModel && r.Model != "":
			info.Model = r.Model
		}
	}
	// The model may have changed past the head (and the head may hold no
	// model record at all): the newest model record is the one in effect.
	if raw, ok, err := transcript.Last(a.dir, id, []byte(`{"type":"model"`)); err == nil && ok {
		if r, err := decodeRecord(raw); err == nil && r.Type == recModel && r.Model != "" {
			info.Model = r.Model
		}
	}
	if t, ok := transcript.Title(a.dir, id); ok {
		info.Title = t
	}
	if st, err := os.Stat(transcript.LivePath(a.dir, id)); err == nil {
		info.Updated = st.ModTime()
	}
	return info, nil
}

// MaxTitle is the longest title Rename takes, in characters.
const MaxTitle = 200

// Rename gives stored session id the title its listings show instead of
// the start of its first prompt; "" gives the session that title back.
// A title is one line of at most MaxTitle characters, without control
// characters.
func (a *Agent) Rename(id, title string) error {
	title = strings.TrimSpace(title)
	if n := utf8.RuneCountInString(title); n > MaxTitle {
		return fmt.Errorf("%w: a session title has at most %d characters, this one %d", ErrInvalid, MaxTitle, n)
	}
	if strings.ContainsFunc(title, unicode.IsControl) {
		return fmt.Errorf("%w: a session title is one line without control characters", ErrInvalid)
	}
	if !transcript.ValidID(id) || !transcript.Exists(a.dir, id) {
		return fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	return transcript.SetTitle(a.dir, id, title)
}

func title(text string) string {
	const max = 80
	for i, r := range text {
		if r == '\n' {
			return text[:i]
		}
		if i >= max {
			return text[:i] + "…"
		}
	}
	return text
}

// Delete closes session id if it is open and removes its transcript.
func (a *Agent) Delete(ctx context.Context, id string) error {
	if s, ok := a.Session(id); ok {
		if err := s.Close(ctx); err != nil {
			return err
		}
	}
	if err := a.settle(ctx, id); err != nil {
		return err
	}
	if !transcript.Exists(a.dir, id) {
		return fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	return transcript.Remove(a.dir, id)
}

// SetRoots makes roots the other workspace roots of every open session
// (Session.SetRoots; each keeps its primary root): the front end's
// workspace folders changed. A session whose roots cannot be set (a
// root is not a directory) keeps its roots, and the errors are joined.
func (a *Agent) SetRoots(roots []string) error {
	a.mu.Lock()
	open := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.SetRoots(roots))
	}
	return errors.Join(errs...)
}

// Close closes every open session (each emits session.end) and refuses
// new ones.
func (a *Agent) Close(ctx context.Context) error {
	a.mu.Lock()
	a.closed = true
	open := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	var errs []error
	for _, s := range open {
		errs = append(errs, s.Close(ctx))
	}
	return errors.Join(errs...)
}

// newID names a session: its UTC start time, so listings sort, and
// random bits, so two sessions started in one second differ.
func newID(now time.Time) (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return now.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:]), nil
}

// redactErr renders an error for display.
func redactErr(err error) string { return redact.String(err.Error()) }
