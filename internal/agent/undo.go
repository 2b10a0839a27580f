package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// The bounds of the turns a session keeps for undo: older turns drop out
// (and UndoTurn says so when it reaches them).
const (
	UndoTurns = 20
	UndoBytes = 64 << 20
)

// Errors of UndoTurn. The error returned wraps one of them and its
// message is the whole explanation, for the user as it is.
var (
	// ErrNothingToUndo: no turn of the session is left to undo.
	ErrNothingToUndo = errors.New("agent: nothing to undo")
	// ErrTurnRunning: a turn runs (in any session of the agent).
	ErrTurnRunning = errors.New("agent: a turn is running")
)

// undoError is an UndoTurn refusal of kind (ErrNothingToUndo,
// ErrTurnRunning) with the message a front end shows.
type undoError struct {
	kind error
	msg  string
}

func (e *undoError) Error() string { return e.msg }
func (e *undoError) Unwrap() error { return e.kind }

// TurnEdit is one file a turn's edits landed in (Result.Edits).
type TurnEdit struct {
	// Path is absolute.
	Path string
	// Created reports that the file did not exist before the turn.
	Created bool
}

// UndoResult is what UndoTurn did.
type UndoResult struct {
	// Turn is the number of the turn undone (Update.Turn, Result.Turn).
	Turn int
	// Restored are the files put back to their text before the turn (a
	// created file removed), absolute, in the order the turn first
	// changed them.
	Restored []string
	// Skipped are the files left alone, with why.
	Skipped []UndoSkip
}

// UndoSkip is a file UndoTurn left alone.
type UndoSkip struct {
	Path   string
	Reason string
}

// RestoreFile is one file UndoTurn puts back as it was before a turn.
type RestoreFile struct {
	// Path is absolute.
	Path string
	// Before is the file's text before the turn's first change of it.
	Before string
	// Created reports that the turn created the file: restoring it
	// removes it.
	Created bool
}

// Restorer is implemented by an Editor that puts files back itself, so
// an undo lands in its buffers (with their own undo) as edits do: the
// bridge sends one workspace/applyEdit, an ACP client gets
// fs/write_text_file. UndoTurn decides what to restore; RestoreFiles is
// how. An Editor without it gets the files restored on disk
// (RestoreOnDisk).
type Restorer interface {
	// RestoreFiles puts files back as they were before turn n. ctx is
	// UndoTurn's, carrying what the front end put there for its editor
	// (the session, for one whose requests are scoped to it). An error
	// means nothing, or not everything, was restored.
	RestoreFiles(ctx context.Context, n int, files []RestoreFile) error
}

// RestoreOnDisk puts f back on disk: its text before written atomically
// with the file's mode kept (a file gone since is written anew), a file
// the turn created removed (already gone is fine).
func RestoreOnDisk(f RestoreFile) error {
	if f.Created {
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return tools.WriteToDisk(tools.FileEdit{Path: f.Path, Whole: true, Content: f.Before})
}

// undoLog keeps, for one session, the text every file had before each
// recent turn changed it, for UndoTurn. It lives in memory only: undo
// does not survive a restart or a reload of the session.
type undoLog struct {
	mu      sync.Mutex
	cur     *turnFiles   // the running turn's, nil between turns
	done    []*turnFiles // finished turns that changed files and are not undone, oldest first
	size    int          // bytes of text held by done
	dropped bool         // a turn fell out of the bounds
}

// turnFiles are the files turn n changed.
type turnFiles struct {
	n     int
	files []*fileSnap // in order of first change
}

// fileSnap is one file a turn changed: its text before the turn's first
// change and after the turn ended.
type fileSnap struct {
	path          string
	created       bool
	before, after string
	afterExists   bool
}

func (t *turnFiles) size() int {
	n := 0
	for _, f := range t.files {
		n += len(f.before) + len(f.after)
	}
	return n
}

// begin starts turn n.
func (l *undoLog) begin(n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur = &turnFiles{n: n}
}

// kept reports whether the running turn already changed path (only its
// first change keeps the text before); true between turns, when there is
// nothing to keep.
func (l *undoLog) kept(path string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return true
	}
	for _, f := range l.cur.files {
		if f.path == path {
			return true
		}
	}
	return false
}

// record notes that the running turn changed path, whose text before was
// before (created: the file did not exist). Only the first change of a
// file in a turn counts.
func (l *undoLog) record(path, before string, created bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cur == nil {
		return
	}
	for _, f := range l.cur.files {
		if f.path == path {
			return
		}
	}
	l.cur.files = append(l.cur.files, &fileSnap{path: path, created: created, before: before})
}

// end finishes the running turn, reading what it left in each file it
// changed with read, keeps it if it changed a file (dropping the oldest
// turns past the bounds) and returns its number and files.
func (l *undoLog) end(read func(string) (string, bool, error)) (int, []TurnEdit) {
	l.mu.Lock()
	cur := l.cur
	l.cur = nil
	l.mu.Unlock()
	if cur == nil {
		return 0, nil
	}
	if len(cur.files) == 0 {
		return cur.n, nil
	}
	edits := make([]TurnEdit, 0, len(cur.files))
	for _, f := range cur.files {
		// A file that cannot be read counts as gone: undo then finds it
		// changed since and leaves it alone unless forced.
		f.after, f.afterExists, _ = read(f.path)
		edits = append(edits, TurnEdit{Path: f.path, Created: f.created})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done = append(l.done, cur)
	l.size += cur.size()
	for len(l.done) > 0 && (len(l.done) > UndoTurns || l.size > UndoBytes) {
		l.size -= l.done[0].size()
		l.done = l.done[1:]
		l.dropped = true
	}
	return cur.n, edits
}

// last is the newest turn not yet undone; dropped reports that older
// turns fell out of the bounds.
func (l *undoLog) last() (t *turnFiles, dropped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.done) == 0 {
		return nil, l.dropped
	}
	return l.done[len(l.done)-1], l.dropped
}

// undone removes turn t.
func (l *undoLog) undone(t *turnFiles) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.done) == 0 || l.done[len(l.done)-1] != t {
		return
	}
	l.done = l.done[:len(l.done)-1]
	l.size -= t.size()
}

// keep leaves turn t to undo with only the skipped files.
func (l *undoLog) keep(t *turnFiles, skipped []UndoSkip) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.done) == 0 || l.done[len(l.done)-1] != t {
		return
	}
	left := map[string]bool{}
	for _, k := range skipped {
		left[k.Path] = true
	}
	l.size -= t.size()
	files := t.files[:0:0]
	for _, f := range t.files {
		if left[f.path] {
			files = append(files, f)
		}
	}
	t.files = files
	l.size += t.size()
}

// clear forgets every turn (the session closed).
func (l *undoLog) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.cur, l.done, l.size = nil, nil, 0
}

// UndoTurn reverts the newest turn of the session that changed files and
// is not undone yet; each call undoes the next older one. Every file goes
// back to its text before the turn (a file the turn created is removed),
// through the Editor when it is a Restorer, else on disk. A file whose
// text changed since the turn left it (as the Editor shows it, else on
// disk) is left alone and reported in Skipped, unless force; a turn with
// skipped files stays the one to undo, holding only those files, so a
// retry with force restores them rather than an older turn.
//
// The session keeps the last UndoTurns turns, at most UndoBytes of text,
// in memory; older turns drop out. No turn left is an error wrapping
// ErrNothingToUndo that says which case it is. One undo runs at a time.
//
// A turn running in any session of the agent (or an Agent.Hold) refuses
// the undo with an error wrapping ErrTurnRunning, and a turn starting
// while the undo runs waits for it: sessions of one workspace share its
// files, so a turn elsewhere may be changing the very files the undo
// puts back, and its next edit would land on text the undo replaced
// under it (or the undo would overwrite it). The Restorer's own failure
// is returned as it is.
//
// ctx is handed to the Editor's Document and RestoreFiles: a front end
// whose editor needs to know the session puts it in ctx as it does for
// Prompt.
func (s *Session) UndoTurn(ctx context.Context, force bool) (UndoResult, error) {
	a := s.a
	a.undoing.Lock()
	defer a.undoing.Unlock()
	if !a.undoGate.TryLock() {
		return UndoResult{}, errTurnRunning
	}
	defer a.undoGate.Unlock()
	if a.Busy() {
		return UndoResult{}, errTurnRunning
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return UndoResult{}, ErrSessionClosed
	}
	t, dropped := s.undo.last()
	if t == nil {
		msg := fmt.Sprintf("nothing to undo in session %q: no turn since it was opened changed a file, or every such turn is undone", s.id)
		if dropped {
			msg = fmt.Sprintf("nothing to undo in session %q: the bridge keeps the edits of the last %d turns (at most %d MiB) only, and older turns have dropped out", s.id, UndoTurns, UndoBytes>>20)
		}
		return UndoResult{}, &undoError{kind: ErrNothingToUndo, msg: msg}
	}
	res := UndoResult{Turn: t.n, Restored: []string{}, Skipped: []UndoSkip{}}
	var todo []RestoreFile
	for _, f := range t.files {
		text, exists, err := FileText(ctx, a.opts.Editor, f.path)
		if err != nil {
			res.Skipped = append(res.Skipped, UndoSkip{Path: f.path, Reason: "cannot read it: " + err.Error()})
			continue
		}
		if !force && (exists != f.afterExists || text != f.after) {
			res.Skipped = append(res.Skipped, UndoSkip{Path: f.path, Reason: "changed since the turn (force restores it anyway)"})
			continue
		}
		if f.created && !exists || !f.created && exists && text == f.before {
			res.Restored = append(res.Restored, f.path) // already as before
			continue
		}
		todo = append(todo, RestoreFile{Path: f.path, Before: f.before, Created: f.created})
	}
	if len(todo) > 0 {
		if err := s.restore(ctx, t.n, todo); err != nil {
			return UndoResult{}, err
		}
		for _, f := range todo {
			res.Restored = append(res.Restored, f.Path)
		}
	}
	if len(res.Skipped) > 0 {
		s.undo.keep(t, res.Skipped)
		return res, nil
	}
	s.undo.undone(t)
	return res, nil
}

var errTurnRunning = &undoError{kind: ErrTurnRunning, msg: "a turn is running; undo the last turn once it has ended"}

// restore puts files back as they were before turn n.
func (s *Session) restore(ctx context.Context, n int, files []RestoreFile) error {
	if r, ok := s.a.opts.Editor.(Restorer); ok {
		return r.RestoreFiles(ctx, n, files)
	}
	var errs []error
	for _, f := range files {
		if err := RestoreOnDisk(f); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// FileText is a file's text as the tools see it: the editor's open
// buffer, else the disk; exists is false for a file that is neither.
func FileText(ctx context.Context, ed Editor, path string) (text string, exists bool, err error) {
	text, open, err := ed.Document(ctx, path)
	if err != nil {
		return "", false, err
	}
	if open {
		return text, true, nil
	}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return string(data), true, nil
	case errors.Is(err, os.ErrNotExist):
		return "", false, nil
	}
	return "", false, err
}

// undoRecorder is the Editor as the tools get it: every edit that lands is
// noted in the session's undo log with the file's text before it, read
// as the tools read it.
type undoRecorder struct {
	Editor
	s *Session
}

// ApplyEdit applies edit through the Editor and, when it landed and is
// the turn's first change of the file, keeps the text before for undo. A
// file whose text before cannot be read is not edited: the edit could
// not be undone.
func (r undoRecorder) ApplyEdit(ctx context.Context, edit FileEdit) error {
	if r.s.undo.kept(edit.Path) {
		return r.Editor.ApplyEdit(ctx, edit)
	}
	before, exists, err := FileText(ctx, r.Editor, edit.Path)
	if err != nil {
		return fmt.Errorf("cannot read %s to keep its text for undo: %w", edit.Path, err)
	}
	if err := r.Editor.ApplyEdit(ctx, edit); err != nil {
		return err
	}
	r.s.undo.record(edit.Path, before, !exists)
	return nil
}
