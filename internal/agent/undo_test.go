package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// edit is an apply_edit call replacing old with new in path.
func edit(id, path, old, new string) extproto.ProviderChunk {
	return call(id, "apply_edit", map[string]any{"path": path, "edits": []map[string]string{{"oldText": old, "newText": new}}})
}

// write is an apply_edit call writing content to path.
func write(id, path, content string) extproto.ProviderChunk {
	return call(id, "apply_edit", map[string]any{"path": path, "content": content})
}

func (h *harness) read(name string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.ws, name))
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

func (h *harness) prompt(s *Session, text string) Result {
	h.t.Helper()
	res, err := s.Prompt(ctx(h.t), text)
	if err != nil {
		h.t.Fatalf("Prompt %q: %v", text, err)
	}
	return res
}

// A turn's result names the files it changed (a file changed twice
// once, in order of first change); undo puts them back newest turn
// first, removes a file the turn created, leaves a file changed since
// the turn alone unless forced (the turn staying the one to undo with
// only that file), and says when nothing is left.
func TestUndoTurn(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(edit("c1", "a.txt", "one", "ONE")), answer("done"),
		answer("just talk"),
		calls(edit("c2", "a.txt", "three", "THREE"), write("c3", "b.txt", "B\n"), write("c4", "c.txt", "new\n"), edit("c5", "a.txt", "two", "TWO")), answer("done"),
	)
	h := newHarness(t, prov)
	h.write("a.txt", "one\ntwo\nthree\n")
	h.write("b.txt", "bee\n")
	a, b, c := filepath.Join(h.ws, "a.txt"), filepath.Join(h.ws, "b.txt"), filepath.Join(h.ws, "c.txt")
	s := h.session()
	if r := h.prompt(s, "first"); r.Turn != 1 || !reflect.DeepEqual(r.Edits, []TurnEdit{{Path: a}}) {
		t.Fatalf("turn 1 = %+v", r)
	}
	if r := h.prompt(s, "second"); r.Turn != 2 || r.Edits != nil {
		t.Fatalf("a turn without edits = %+v", r)
	}
	r := h.prompt(s, "third")
	if want := []TurnEdit{{Path: a}, {Path: b}, {Path: c, Created: true}}; r.Turn != 3 || !reflect.DeepEqual(r.Edits, want) {
		t.Fatalf("turn 3 = %+v, want edits %+v", r, want)
	}
	// The user changes b.txt after the turn.
	h.write("b.txt", "mine\n")

	u, err := s.UndoTurn(ctx(t), false)
	if err != nil || u.Turn != 3 || !reflect.DeepEqual(u.Restored, []string{a, c}) || len(u.Skipped) != 1 || u.Skipped[0].Path != b || u.Skipped[0].Reason != "changed since the turn (force restores it anyway)" {
		t.Fatalf("undo of turn 3 = %+v, %v", u, err)
	}
	if got := h.read("a.txt") + h.read("b.txt"); got != "ONE\ntwo\nthree\nmine\n" {
		t.Errorf("after the undo of turn 3: %q", got)
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt, created by turn 3, after its undo: %v", err)
	}
	// Until its skipped file is restored, turn 3 is the one to undo, with
	// only that file.
	if u, err := s.UndoTurn(ctx(t), false); err != nil || u.Turn != 3 || len(u.Restored) != 0 || len(u.Skipped) != 1 || u.Skipped[0].Path != b {
		t.Fatalf("undo again without force = %+v, %v", u, err)
	}
	if u, err := s.UndoTurn(ctx(t), true); err != nil || u.Turn != 3 || !reflect.DeepEqual(u.Restored, []string{b}) || len(u.Skipped) != 0 {
		t.Fatalf("forced undo of turn 3 = %+v, %v", u, err)
	}
	if got := h.read("b.txt"); got != "bee\n" {
		t.Errorf("b.txt after the forced undo: %q", got)
	}
	// Turn 2 changed nothing and is not kept: turn 1 is next.
	if u, err := s.UndoTurn(ctx(t), false); err != nil || u.Turn != 1 || !reflect.DeepEqual(u.Restored, []string{a}) {
		t.Fatalf("undo of turn 1 = %+v, %v", u, err)
	}
	if got := h.read("a.txt"); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt after the undo of turn 1: %q", got)
	}
	_, err = s.UndoTurn(ctx(t), false)
	if !errors.Is(err, ErrNothingToUndo) || err.Error() != `nothing to undo in session "`+s.ID()+`": no turn since it was opened changed a file, or every such turn is undone` {
		t.Errorf("undo with nothing left: %v", err)
	}
}

// A file already back as it was before the turn counts as restored and
// is not written; a file the turn created that is gone already too.
func TestUndoTurnAlreadyRestored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(calls(write("c1", "a.txt", "A\n"), write("c2", "n.txt", "N\n")), answer("done")))
	ed := &restorer{fakeEditor: h.editor}
	h.opts.Editor = ed
	h.agent = h.reopen()
	h.write("a.txt", "a\n")
	s := h.session()
	h.prompt(s, "go")
	h.write("a.txt", "a\n")
	if err := os.Remove(filepath.Join(h.ws, "n.txt")); err != nil {
		t.Fatal(err)
	}
	// Forced: both are changed since the turn, and both are as before.
	u, err := s.UndoTurn(ctx(t), true)
	if err != nil || len(u.Restored) != 2 || len(u.Skipped) != 0 {
		t.Fatalf("undo = %+v, %v", u, err)
	}
	if len(ed.calls()) != 0 {
		t.Errorf("restored %+v, which were as before already", ed.calls())
	}
}

// An editor that restores files itself gets them, with the turn's
// number; the disk is left to it. Whether a file changed since the turn
// is judged by the editor's open buffer, as the tools read it.
func TestUndoTurnRestorer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(calls(edit("c1", "a.txt", "a", "A"), write("c2", "n.txt", "N\n"), edit("c3", "o.txt", "o", "O")), answer("done")))
	ed := &restorer{fakeEditor: h.editor}
	h.opts.Editor = ed
	h.agent = h.reopen()
	h.write("a.txt", "a\n")
	h.write("o.txt", "o\n")
	a, n, o := filepath.Join(h.ws, "a.txt"), filepath.Join(h.ws, "n.txt"), filepath.Join(h.ws, "o.txt")
	s := h.session()
	if r := h.prompt(s, "go"); len(r.Edits) != 3 {
		t.Fatalf("turn = %+v", r)
	}
	// o.txt is open in the editor with the user's unsaved change.
	h.editor.mu.Lock()
	h.editor.open = map[string]string{o: "O\nunsaved\n"}
	h.editor.mu.Unlock()
	u, err := s.UndoTurn(ctx(t), false)
	if err != nil || !reflect.DeepEqual(u.Restored, []string{a, n}) || len(u.Skipped) != 1 || u.Skipped[0].Path != o {
		t.Fatalf("undo = %+v, %v", u, err)
	}
	want := []restoreCall{{turn: 1, files: []RestoreFile{{Path: a, Before: "a\n"}, {Path: n, Created: true}}}}
	if got := ed.calls(); !reflect.DeepEqual(got, want) {
		t.Errorf("RestoreFiles calls = %+v, want %+v", got, want)
	}
	if got := h.read("a.txt") + h.read("n.txt"); got != "A\nN\n" {
		t.Errorf("the agent wrote the disk itself: %q", got)
	}
	// The editor's failure is the undo's, and the turn stays to undo.
	ed.fail = errors.New("the editor said no")
	if _, err := s.UndoTurn(ctx(t), true); err != ed.fail {
		t.Errorf("forced undo with a failing editor: %v", err)
	}
	ed.fail = nil
	if u, err := s.UndoTurn(ctx(t), true); err != nil || u.Turn != 1 || !reflect.DeepEqual(u.Restored, []string{o}) {
		t.Errorf("forced undo = %+v, %v", u, err)
	}
}

// restorer is the fake editor as a Restorer: it records what it is asked
// to restore and restores nothing.
type restorer struct {
	*fakeEditor
	mu       sync.Mutex
	restored []restoreCall
	fail     error
	// block, when set, holds RestoreFiles until it is closed; entered
	// is told when it starts waiting.
	block, entered chan struct{}
}

type restoreCall struct {
	turn  int
	files []RestoreFile
}

func (r *restorer) RestoreFiles(_ context.Context, turn int, files []RestoreFile) error {
	if r.block != nil {
		r.entered <- struct{}{}
		<-r.block
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	r.restored = append(r.restored, restoreCall{turn, files})
	return nil
}

func (r *restorer) calls() []restoreCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]restoreCall(nil), r.restored...)
}

// Restored on disk, a file keeps its mode.
func TestUndoTurnKeepsMode(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(calls(write("c1", "run.sh", "echo new\n")), answer("done")))
	p := filepath.Join(h.ws, "run.sh")
	if err := os.WriteFile(p, []byte("echo old\n"), 0o751); err != nil {
		t.Fatal(err)
	}
	s := h.session()
	h.prompt(s, "go")
	if _, err := s.UndoTurn(ctx(t), false); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o751 || h.read("run.sh") != "echo old\n" {
		t.Errorf("run.sh after undo: %v, %v, %q", st.Mode(), err, h.read("run.sh"))
	}
}

// An edit that did not land (the user rejected it) is not undone, and a
// turn whose every edit failed is not kept.
func TestUndoTurnRejectedEdit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(calls(write("c1", "a.txt", "A\n")), answer("done")), withApproval(ApproveAsk))
	h.editor.reviews, h.editor.rejects = true, true
	h.write("a.txt", "a\n")
	s := h.session()
	if r := h.prompt(s, "go"); r.Edits != nil {
		t.Errorf("a rejected edit listed: %+v", r.Edits)
	}
	if _, err := s.UndoTurn(ctx(t), false); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo after a rejected edit: %v", err)
	}
}

// Undo is refused while a turn runs in any session (or a Hold stands in
// for one), and a turn that starts while an undo runs waits for it.
func TestUndoTurnWhileATurnRuns(t *testing.T) {
	t.Parallel()
	prov := newScripted(calls(write("c1", "a.txt", "A\n")), answer("done"), step{hang: true})
	prov.started = make(chan providers.Request, 8)
	h := newHarness(t, prov)
	ed := &restorer{fakeEditor: h.editor}
	h.opts.Editor = ed
	h.agent = h.reopen()
	s, other := h.session(), h.session()
	h.prompt(s, "go")
	<-prov.started
	<-prov.started

	done := make(chan error, 1)
	go func() {
		_, err := other.Prompt(context.Background(), "hang")
		done <- err
	}()
	<-prov.started
	if _, err := s.UndoTurn(ctx(t), false); !errors.Is(err, ErrTurnRunning) || err.Error() != "a turn is running; undo the last turn once it has ended" {
		t.Errorf("undo while another session's turn runs: %v", err)
	}
	other.Cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	release := h.agent.Hold()
	if _, err := s.UndoTurn(ctx(t), false); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("undo during a Hold: %v", err)
	}
	release()

	// A prompt sent while the editor restores starts after it.
	ed.block, ed.entered = make(chan struct{}), make(chan struct{}, 1)
	prov.push(answer("after"))
	undone := make(chan error, 1)
	go func() {
		_, err := s.UndoTurn(context.Background(), false)
		undone <- err
	}()
	<-ed.entered
	go func() {
		_, err := other.Prompt(context.Background(), "after the undo")
		done <- err
	}()
	select {
	case <-prov.started:
		t.Fatal("a turn started while an undo ran")
	case <-time.After(100 * time.Millisecond):
	}
	close(ed.block)
	if err := <-undone; err != nil {
		t.Fatal(err)
	}
	<-prov.started
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// Past UndoTurns turns, or UndoBytes of text, the oldest turns drop out,
// and undo says so when it reaches them.
func TestUndoLogBounds(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted())
	s := h.session()
	turn := func(n int, text string) {
		p := filepath.Join(h.ws, "f.txt")
		s.undo.begin(n)
		s.undo.record(p, text, false)
		s.undo.end(func(string) (string, bool, error) { return text, true, nil })
	}
	for n := 1; n <= UndoTurns+1; n++ {
		turn(n, "same\n")
	}
	h.write("f.txt", "same\n")
	for n := UndoTurns + 1; n > 1; n-- {
		if u, err := s.UndoTurn(ctx(t), false); err != nil || u.Turn != n {
			t.Fatalf("undo = %+v, %v; want turn %d", u, err, n)
		}
	}
	_, err := s.UndoTurn(ctx(t), false)
	if !errors.Is(err, ErrNothingToUndo) || !strings.Contains(err.Error(), "the bridge keeps the edits of the last 20 turns (at most 64 MiB) only, and older turns have dropped out") {
		t.Errorf("undo past the bound: %v", err)
	}

	big := strings.Repeat("x", UndoBytes/4+1) // before and after: over half the bound
	s2 := h.session()
	s2.undo.begin(1)
	s2.undo.record("/nowhere/1", big, false)
	s2.undo.end(func(string) (string, bool, error) { return big, true, nil })
	s2.undo.begin(2)
	s2.undo.record("/nowhere/2", big, false)
	s2.undo.end(func(string) (string, bool, error) { return big, true, nil })
	if len(s2.undo.done) != 1 || s2.undo.done[0].n != 2 || !s2.undo.dropped || s2.undo.size != 2*len(big) {
		t.Errorf("past the byte bound: %d turns kept, dropped %v, %d bytes", len(s2.undo.done), s2.undo.dropped, s2.undo.size)
	}
}

// A loaded session starts with nothing to undo (undo lives in memory),
// and its turns go on numbered from its transcript's.
func TestUndoTurnAfterLoad(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(calls(write("c1", "a.txt", "A\n")), answer("done"), calls(write("c2", "a.txt", "B\n")), answer("done")))
	s := h.session()
	h.prompt(s, "one")
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.UndoTurn(ctx(t), false); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("undo in a closed session: %v", err)
	}
	s, err := h.agent.Load(ctx(t), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UndoTurn(ctx(t), false); !errors.Is(err, ErrNothingToUndo) {
		t.Errorf("undo right after the load: %v", err)
	}
	if r := h.prompt(s, "two"); r.Turn != 2 || len(r.Edits) != 1 {
		t.Fatalf("the loaded session's first turn = %+v", r)
	}
	if u, err := s.UndoTurn(ctx(t), false); err != nil || u.Turn != 2 || h.read("a.txt") != "A\n" {
		t.Errorf("undo = %+v, %v; a.txt %q", u, err, h.read("a.txt"))
	}
}
