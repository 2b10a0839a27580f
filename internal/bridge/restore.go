package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// The bounds of the turns kept for undo, per session: older turns drop
// out (and undo says so when it reaches them).
const (
	undoTurns = 20
	undoBytes = 64 << 20
)

// turnLog keeps, per open session, the text every file had before each
// recent turn changed it, for rx/session/undoTurn. It lives in memory
// only: undo does not survive a bridge restart.
type turnLog struct {
	mu       sync.Mutex
	sessions map[string]*sessionTurns
	undoing  sync.Mutex // one undo at a time
}

type sessionTurns struct {
	n       int          // turns begun since the session was opened here
	cur     *turnFiles   // the running turn's, nil between turns
	done    []*turnFiles // finished turns that changed files and are not undone, oldest first
	size    int          // bytes of text held by done
	dropped bool         // a turn fell out of the bounds
}

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

func (l *turnLog) session(id string) *sessionTurns {
	if l.sessions == nil {
		l.sessions = map[string]*sessionTurns{}
	}
	st := l.sessions[id]
	if st == nil {
		st = &sessionTurns{}
		l.sessions[id] = st
	}
	return st
}

// begin starts a turn of session id.
func (l *turnLog) begin(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.session(id)
	st.n++
	st.cur = &turnFiles{n: st.n}
}

// record notes that the running turn of session id changed path, whose
// text before was before (created: the file did not exist). Only the
// first change of a file in a turn counts.
func (l *turnLog) record(id, path, before string, created bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.sessions[id]
	if st == nil || st.cur == nil {
		return
	}
	for _, f := range st.cur.files {
		if f.path == path {
			return
		}
	}
	st.cur.files = append(st.cur.files, &fileSnap{path: path, created: created, before: before})
}

// end finishes the running turn of session id, reading what it left in
// each file it changed with read, and returns the turn's number and
// files (none when it changed nothing).
func (l *turnLog) end(id string, read func(string) (string, bool, error)) (int64, []rxproto.TurnEdit) {
	l.mu.Lock()
	st := l.sessions[id]
	var cur *turnFiles
	if st != nil {
		cur, st.cur = st.cur, nil
	}
	l.mu.Unlock()
	if cur == nil || len(cur.files) == 0 {
		return 0, nil
	}
	edits := make([]rxproto.TurnEdit, 0, len(cur.files))
	for _, f := range cur.files {
		f.after, f.afterExists, _ = read(f.path)
		edits = append(edits, rxproto.TurnEdit{Path: f.path, Created: f.created})
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if st = l.sessions[id]; st == nil {
		return int64(cur.n), edits // closed meanwhile
	}
	st.done = append(st.done, cur)
	st.size += cur.size()
	for len(st.done) > 0 && (len(st.done) > undoTurns || st.size > undoBytes) {
		st.size -= st.done[0].size()
		st.done = st.done[1:]
		st.dropped = true
	}
	return int64(cur.n), edits
}

// last is the newest turn of session id not yet undone; dropped reports
// that older turns fell out of the bounds.
func (l *turnLog) last(id string) (t *turnFiles, dropped bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.sessions[id]
	if st == nil {
		return nil, false
	}
	if len(st.done) == 0 {
		return nil, st.dropped
	}
	return st.done[len(st.done)-1], st.dropped
}

// undone removes turn t of session id.
func (l *turnLog) undone(id string, t *turnFiles) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.sessions[id]
	if st == nil || len(st.done) == 0 || st.done[len(st.done)-1] != t {
		return
	}
	st.done = st.done[:len(st.done)-1]
	st.size -= t.size()
}

// keep leaves turn t of session id to undo with only the skipped files.
func (l *turnLog) keep(id string, t *turnFiles, skipped []rxproto.UndoSkip) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.sessions[id]
	if st == nil || len(st.done) == 0 || st.done[len(st.done)-1] != t {
		return
	}
	left := map[string]bool{}
	for _, k := range skipped {
		left[k.Path] = true
	}
	st.size -= t.size()
	files := t.files[:0:0]
	for _, f := range t.files {
		if left[f.path] {
			files = append(files, f)
		}
	}
	t.files = files
	st.size += t.size()
}

// drop forgets session id's turns (the session closed).
func (l *turnLog) drop(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.sessions, id)
}

// sessionUndoTurn reverts the last turn of a session that changed files
// and is not undone yet: each file back to its text before the turn (a
// file the turn created deleted), through workspace/applyEdit when the
// editor applies edits, else on disk. A file changed since the turn left
// it is skipped unless force.
func (s *Server) sessionUndoTurn(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.UndoTurnParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if _, ok := s.agent.Session(p.SessionID); !ok {
		return nil, invalidParams("no open session %q", p.SessionID)
	}
	s.undo.undoing.Lock()
	defer s.undo.undoing.Unlock()
	if s.agent.Busy() {
		return nil, invalidRequest("a turn is running; undo the last turn once it has ended")
	}
	t, dropped := s.undo.last(p.SessionID)
	if t == nil {
		msg := fmt.Sprintf("nothing to undo in session %q: no turn since it was opened changed a file, or every such turn is undone", p.SessionID)
		if dropped {
			msg = fmt.Sprintf("nothing to undo in session %q: the bridge keeps the edits of the last %d turns (at most %d MiB) only, and older turns have dropped out", p.SessionID, undoTurns, undoBytes>>20)
		}
		return nil, invalidParams("%s", msg)
	}
	res := rxproto.UndoTurnResult{Turn: int64(t.n), Restored: []string{}, Skipped: []rxproto.UndoSkip{}}
	var todo []*fileSnap
	for _, f := range t.files {
		text, exists, err := s.fileText(f.path)
		if err != nil {
			res.Skipped = append(res.Skipped, rxproto.UndoSkip{Path: f.path, Reason: "cannot read it: " + err.Error()})
			continue
		}
		if !p.Force && (exists != f.afterExists || text != f.after) {
			res.Skipped = append(res.Skipped, rxproto.UndoSkip{Path: f.path, Reason: "changed since the turn (force restores it anyway)"})
			continue
		}
		if f.created && !exists || !f.created && exists && text == f.before {
			res.Restored = append(res.Restored, f.path) // already as before
			continue
		}
		todo = append(todo, f)
	}
	if len(todo) > 0 {
		if err := s.restore(ctx, t.n, todo); err != nil {
			return nil, err
		}
		for _, f := range todo {
			res.Restored = append(res.Restored, f.path)
		}
	}
	if len(res.Skipped) > 0 {
		// The turn stays the one to undo, with only the files left alone,
		// so that a retry with force restores them (not an older turn).
		s.undo.keep(p.SessionID, t, res.Skipped)
		return res, nil
	}
	s.undo.undone(p.SessionID, t)
	return res, nil
}

// restore puts files back as they were before turn n.
func (s *Server) restore(ctx context.Context, n int, files []*fileSnap) error {
	if !s.client.applyEdit {
		var errs []error
		for _, f := range files {
			if err := restoreOnDisk(f); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	var changes []protocol.DocumentChange
	for _, f := range files {
		u := uri.File(f.path)
		if f.created {
			changes = append(changes, &protocol.DeleteFile{Kind: "delete", URI: u, Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptr(true)}})
			continue
		}
		text, exists, err := s.fileText(f.path)
		if err != nil {
			return err
		}
		if !exists {
			changes = append(changes, &protocol.CreateFile{Kind: "create", URI: u})
		}
		id := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}}
		if _, version, open := s.document(f.path); open {
			id.Version = &version
		}
		changes = append(changes, &protocol.TextDocumentEdit{TextDocument: id, Edits: []protocol.TextDocumentEditElement{lineDiff(text, f.before)}})
	}
	label := "Reasonix: undo turn " + strconv.Itoa(n)
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: protocol.WorkspaceEdit{DocumentChanges: changes}}, &res); err != nil {
		return err
	}
	if !res.Applied {
		reason := "no reason given"
		if res.FailureReason != nil && *res.FailureReason != "" {
			reason = *res.FailureReason
		}
		return domainError(fmt.Errorf("the editor did not apply the undo of turn %d: %s", n, reason))
	}
	return nil
}

func restoreOnDisk(f *fileSnap) error {
	if f.created {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(f.path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(f.path, []byte(f.before), mode)
}

func ptr[T any](v T) *T { return &v }

// lineDiff is one edit turning from into to that replaces only the lines
// between their common leading and trailing lines, so the rest of the
// buffer (and its marks) stays as it is.
func lineDiff(from, to string) *protocol.TextEdit {
	a, b := strings.SplitAfter(from, "\n"), strings.SplitAfter(to, "\n")
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] && strings.HasSuffix(a[pre], "\n") {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	start := protocol.Position{Line: uint32(pre)}
	end := endOf(strings.Join(a[:len(a)-suf], ""))
	return &protocol.TextEdit{Range: protocol.Range{Start: start, End: end}, NewText: strings.Join(b[pre:len(b)-suf], "")}
}
