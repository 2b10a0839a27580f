package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
)

// conversation runs three turns with tools, reasoning, a model change and
// a denied call, so a reload has everything to get right.
func conversation(t *testing.T, h *harness) *Session {
	t.Helper()
	h.prov.push(
		calls(call("c1", "list_files", "{}"), call("c2", "read_file", map[string]any{"path": "a.txt"})),
		step{chunks: []extproto.ProviderChunk{thought("hm"), thought("m"), text("It says "), text("hello."), usage(30, 4, "stop"), done()}},
		calls(call("c3", "apply_edit", map[string]any{"path": "a.txt", "content": "bye"})),
		answer("Could not edit."),
		answer("Third."),
	)
	h.write("a.txt", "hello")
	h.editor.answers = func(r PermissionRequest) PermissionOutcome {
		if r.ToolCall.Name == "apply_edit" {
			return PermissionDeny
		}
		return PermissionAllow
	}
	s := h.session()
	for _, p := range []string{"what does a.txt say?", "change it"} {
		if _, err := s.Prompt(ctx(t), p); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetModel("test/m2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "third"); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSaveLoadExact(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(), withApproval("auto"))
	s := conversation(t, h)
	id := s.ID()
	live := merged(h.updates.of(id))
	hist, use, turns := s.History(), s.Usage(), s.Turns()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if s.Model() != "test/m2" || turns != 3 {
		t.Fatalf("model %s, turns %d", s.Model(), turns)
	}

	a := h.reopen()
	h.updates.reset(id)
	loaded, err := a.Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	equalUpdates(t, h.updates.of(id), live)
	if !reflect.DeepEqual(loaded.History(), hist) {
		t.Errorf("history differs after load:\ngot  %+v\nwant %+v", loaded.History(), hist)
	}
	if loaded.Usage() != use || loaded.Turns() != turns || loaded.Model() != "test/m2" || loaded.Workspace() != s.Workspace() {
		t.Errorf("loaded usage %+v turns %d model %s", loaded.Usage(), loaded.Turns(), loaded.Model())
	}
	// The loaded session goes on where it stopped, with the new model.
	h.prov.push(answer("fourth"))
	if _, err := loaded.Prompt(ctx(t), "fourth"); err != nil {
		t.Fatal(err)
	}
	reqs := h.prov.requests()
	last := reqs[len(reqs)-1]
	if last.Ref != "test/m2" || len(last.Body.Messages) != len(hist)+2 {
		t.Errorf("request after load: %s with %d messages, want test/m2 with %d", last.Ref, len(last.Body.Messages), len(hist)+2)
	}
	if _, err := a.Load(ctx(t), id); !errors.Is(err, ErrSessionOpen) {
		t.Errorf("second load: %v", err)
	}
}

func TestLoadTornLastLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(answer("one")))
	s := h.session()
	if _, err := s.Prompt(ctx(t), "hi"); err != nil {
		t.Fatal(err)
	}
	id, path := s.ID(), s.TranscriptPath()
	hist := s.History()
	_ = s.Close(ctx(t))
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"type":"update","update":{"sessionUpd`)
	f.Close()

	h.updates.reset(id)
	loaded, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded.History(), hist) {
		t.Errorf("history %+v", loaded.History())
	}
	us := h.updates.of(id)
	last := us[len(us)-1]
	if last.Kind != UpdateNotice || last.Notice.Kind != NoticeTranscript || !strings.Contains(last.Notice.Text, "incomplete record") {
		t.Fatalf("last update %+v, want the torn line reported", last)
	}
	if _, torn, err := transcript.Read(h.home+"/sessions", id); err != nil || torn != nil {
		t.Errorf("the torn tail is still there: %v %v", torn, err)
	}
}

func TestRotationKeepsLoadExact(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(), func(o *Options) { o.MaxTranscriptBytes = 1500 })
	s := conversation(t, h)
	id := s.ID()
	live := merged(h.updates.of(id))
	hist := s.History()
	_ = s.Close(ctx(t))
	var rotations int
	for _, u := range live {
		if u.Kind == UpdateNotice && u.Notice.Kind == NoticeTranscript {
			rotations++
		}
	}
	if rotations == 0 {
		t.Fatal("the transcript never rotated")
	}
	h.updates.reset(id)
	loaded, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	equalUpdates(t, h.updates.of(id), live)
	if !reflect.DeepEqual(loaded.History(), hist) {
		t.Error("history differs after load across segments")
	}
}

// Issue 30 item 10: a model change long after the session started (past
// the head of the transcript the listing reads for its header and title)
// is the model the listing shows, open and once closed.
func TestListShowsAModelChangedLate(t *testing.T) {
	t.Parallel()
	var steps []step
	for i := 0; i < 30; i++ {
		steps = append(steps, answer(fmt.Sprintf("answer %d", i)))
	}
	h := newHarness(t, newScripted(steps...))
	s := h.session()
	for i := 0; i < 29; i++ {
		if _, err := s.Prompt(ctx(t), fmt.Sprintf("prompt %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetModel("test/m2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "on m2"); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	recs, _, err := transcript.Read(filepath.Join(h.home, SessionsDir), id)
	if err != nil || len(recs) <= 64 {
		t.Fatalf("the transcript has %d records (%v): the model change must come after the listing's head", len(recs), err)
	}
	for _, a := range []*Agent{h.agent, h.reopen()} {
		all, err := a.List(h.ws)
		if err != nil || len(all) != 1 || all[0].Model != "test/m2" {
			t.Fatalf("List = %+v, %v; want the session on test/m2", all, err)
		}
	}
}

func TestListAndDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(answer("a"), answer("b")))
	s1 := h.session()
	if _, err := s1.Prompt(ctx(t), "first session\nsecond line"); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	s2, err := h.agent.New(ctx(t), other, "test/m2")
	if err != nil {
		t.Fatal(err)
	}
	all, err := h.agent.List("")
	if err != nil || len(all) != 2 {
		t.Fatalf("List = %+v, %v", all, err)
	}
	mine, _ := h.agent.List(h.ws)
	if len(mine) != 1 || mine[0].ID != s1.ID() || mine[0].Title != "first session" || mine[0].Model != "test/m1" || !mine[0].Open {
		t.Fatalf("List(ws) = %+v", mine)
	}
	// A model switch after a prompt shows in the listing, open and once
	// closed.
	if _, err := s2.Prompt(ctx(t), "other"); err != nil {
		t.Fatal(err)
	}
	if err := s2.SetModel("test/m1"); err != nil {
		t.Fatal(err)
	}
	if theirs, _ := h.agent.List(other); len(theirs) != 1 || theirs[0].Model != "test/m1" {
		t.Fatalf("List after SetModel = %+v", theirs)
	}
	if err := s2.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if theirs, _ := h.agent.List(other); len(theirs) != 1 || theirs[0].Model != "test/m1" || theirs[0].Open {
		t.Fatalf("List after Close = %+v", theirs)
	}
	if err := h.agent.Delete(ctx(t), s2.ID()); err != nil {
		t.Fatal(err)
	}
	if _, open := h.agent.Session(s2.ID()); open {
		t.Error("deleted session still open")
	}
	if all, _ := h.agent.List(""); len(all) != 1 {
		t.Errorf("after delete: %+v", all)
	}
	if err := h.agent.Delete(ctx(t), s2.ID()); !errors.Is(err, ErrNoSession) {
		t.Errorf("second delete: %v", err)
	}
	if _, err := h.agent.Load(ctx(t), "nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("load of a missing session: %v", err)
	}
}

func TestNewRefusesUnknownModel(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(answer("hello")))
	if _, err := h.agent.New(ctx(t), h.ws, "test/nope"); err == nil || !strings.Contains(err.Error(), "available: test/m1, test/m2") {
		t.Errorf("New with an unknown model: %v", err)
	}
	// A fresh home (issue 29 item 8): the session starts without a
	// model; its prompt says the one step that fixes it, and once a model
	// is configured the same session takes it.
	bare, err := h.agent.New(ctx(t), h.ws, "")
	if err != nil || bare.Model() != "" {
		t.Fatalf("New without a model anywhere: %v, model %q", err, bare.Model())
	}
	if _, err := bare.Prompt(ctx(t), "hi"); !errors.Is(err, ErrNoModel) || !strings.Contains(err.Error(), "rx-bridge setup") {
		t.Errorf("a prompt without a model: %v", err)
	}
	h.write(".rx-bridge.toml", "model = \"test/m2\"\n")
	s, err := h.agent.New(ctx(t), h.ws, "")
	if err != nil || s.Model() != "test/m2" {
		t.Errorf("workspace default model: %v", err)
	}
	if _, err := bare.Prompt(ctx(t), "hi"); err != nil || bare.Model() != "test/m2" {
		t.Errorf("the model-less session once a model is configured: %v, model %q", err, bare.Model())
	}
	s1 := h.session()
	if err := s1.SetModel("test/zzz"); err == nil {
		t.Error("SetModel to an unknown ref succeeded")
	}
}

// A load or delete of a session while its close is under way waits for
// the close to release the transcript: the editor closing a chat and
// resuming it at once got "the session is open in another process". The
// session's SessionEnd hook holds the close until the test opens a gate.
func TestLoadAndDeleteWaitForAClose(t *testing.T) {
	t.Parallel()
	for _, op := range []string{"load", "delete"} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			gate, running := filepath.Join(dir, "gate"), filepath.Join(dir, "running")
			r := loadHooks(t, nil, hookPackage(t, "gated", map[string][]map[string]any{
				"SessionEnd": {hookEntry(filepath.Join(dir, "log"), map[string]string{envHookPidfile: running, envHookGate: gate}, nil)},
			}))
			h := newHarness(t, newScripted(answer("hi")), withHooks(r))
			s := h.session()
			if _, err := s.Prompt(ctx(t), "hello"); err != nil {
				t.Fatal(err)
			}
			closed := make(chan error, 1)
			go func() { closed <- s.Close(ctx(t)) }()
			waitFile(t, running) // the close is under way, the transcript held
			done := make(chan error, 1)
			go func() {
				var err error
				if op == "load" {
					var again *Session
					if again, err = h.agent.Load(ctx(t), s.ID()); err == nil {
						err = again.Close(ctx(t))
					}
				} else {
					err = h.agent.Delete(ctx(t), s.ID())
				}
				done <- err
			}()
			select {
			case err := <-done:
				t.Fatalf("%s returned before the close ended: %v", op, err)
			case <-time.After(100 * time.Millisecond):
			}
			if err := os.WriteFile(gate, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := <-closed; err != nil {
				t.Fatalf("Close: %v", err)
			}
			if err := <-done; err != nil {
				t.Fatalf("%s after the close: %v", op, err)
			}
			if exists := transcript.Exists(h.agent.dir, s.ID()); exists != (op == "load") {
				t.Fatalf("after %s the transcript exists = %v", op, exists)
			}
		})
	}
}

func waitFile(t *testing.T, f string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(f); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", f)
		}
	}
}
