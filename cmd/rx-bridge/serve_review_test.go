package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// diskEditor is an editor that applies workspace/applyEdit to the files
// on disk, rejecting the edits of the paths in reject, and records every
// request.
type diskEditor struct {
	mu      sync.Mutex
	reject  map[string]bool
	edits   []applyEditReq
	asked   []string
	release chan struct{} // when set, permission questions wait for it
	asking  chan struct{} // when set, gets a value for each question
}

type applyEditReq struct {
	Label string
	Edit  struct {
		DocumentChanges   []json.RawMessage
		ChangeAnnotations map[string]struct {
			Label             string
			NeedsConfirmation bool
			Description       string
		}
	}
}

type docChange struct {
	Kind         string
	URI          string
	AnnotationID string
	TextDocument struct{ URI string }
	Edits        []struct {
		tools.TextEdit
		AnnotationID string
	}
}

func uriPath(u string) string { return strings.TrimPrefix(u, "file://") }

func (d *diskEditor) install(c *lspclient.Client) {
	c.Handle("rx/session/requestPermission", func(ctx context.Context, raw json.RawMessage) (any, error) {
		var r struct{ ToolCall struct{ Title, Kind string } }
		_ = json.Unmarshal(raw, &r)
		d.mu.Lock()
		d.asked = append(d.asked, r.ToolCall.Kind+" "+r.ToolCall.Title)
		release, asking := d.release, d.asking
		d.mu.Unlock()
		if asking != nil {
			asking <- struct{}{}
		}
		if release != nil {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow"}}, nil
	})
	c.Handle("workspace/applyEdit", func(_ context.Context, raw json.RawMessage) (any, error) {
		var req applyEditReq
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.edits = append(d.edits, req)
		d.mu.Unlock()
		var changes []docChange
		for _, rc := range req.Edit.DocumentChanges {
			var ch docChange
			if err := json.Unmarshal(rc, &ch); err != nil {
				return nil, err
			}
			path := uriPath(ch.URI + ch.TextDocument.URI)
			if d.reject[filepath.Base(path)] {
				return map[string]any{"applied": false}, nil
			}
			changes = append(changes, ch)
		}
		for _, ch := range changes {
			path := uriPath(ch.URI + ch.TextDocument.URI)
			switch ch.Kind {
			case "create":
				if err := os.WriteFile(path, nil, 0o644); err != nil {
					return nil, err
				}
				continue
			case "delete":
				if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
					return nil, err
				}
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, err
			}
			var edits []tools.TextEdit
			for _, e := range ch.Edits {
				edits = append(edits, e.TextEdit)
			}
			text, err := tools.ApplyText(string(data), edits)
			if err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
		return map[string]any{"applied": true}, nil
	})
}

func (d *diskEditor) requests() []applyEditReq {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]applyEditReq(nil), d.edits...)
}

type turnResult struct {
	StopReason string
	Text       string
	Turn       int
	Edits      []struct {
		Path    string
		Created bool
	}
}

func promptTurn(t *testing.T, c *lspclient.Client, id, text string) turnResult {
	t.Helper()
	var r turnResult
	if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": id, "prompt": text}, &r); err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return r
}

type undoResult struct {
	Turn     int
	Restored []string
	Skipped  []struct{ Path, Reason string }
}

// toolOutputs are the final texts of the session's tool calls, in order.
func toolOutputs(c *lspclient.Client, id string) []string {
	var out []string
	for _, m := range c.Messages("rx/session/update") {
		var u struct {
			SessionID string
			Update    struct {
				SessionUpdate, Status string
				Content               []struct{ Content struct{ Text string } }
			}
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID == id && u.Update.SessionUpdate == "tool_call_update" && (u.Update.Status == "completed" || u.Update.Status == "failed") && len(u.Update.Content) > 0 {
			out = append(out, u.Update.Status+": "+u.Update.Content[0].Content.Text)
		}
	}
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(data)
}

func reviewSession(t *testing.T, approval string, rx map[string]any, applyEdit bool, ed *diskEditor) (*serveEnv, *lspclient.Client, string) {
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"" + approval + "\"\n")
	for name, text := range map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "bee\n"} {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := e.start()
	ed.install(c)
	initialized(t, c, clientCaps(rx, map[string]any{"workspace": map[string]any{"applyEdit": applyEdit}}))
	sid := newSession(t, c)
	return e, c, sid
}

const twoFilesAndNew = "call apply_edit {\"path\": \"a.txt\", \"edits\": [{\"oldText\": \"two\", \"newText\": \"TWO\"}]}\n" +
	"call apply_edit {\"path\": \"b.txt\", \"edits\": [{\"oldText\": \"bee\", \"newText\": \"BEE\"}]}\n" +
	"call apply_edit {\"path\": \"c.txt\", \"content\": \"new file\\n\"}"

// In an editor that reviews edits, an edit the approval mode would ask
// about is not asked about: it arrives with a change annotation needing
// confirmation, the editor's rejection fails the call with a clear
// error, and the prompt's result lists the files that changed.
func TestServeReviewedEdits(t *testing.T) {
	t.Parallel()
	rx := fullRx()
	rx["reviewEdits"] = true
	ed := &diskEditor{reject: map[string]bool{"b.txt": true}}
	e, c, id := reviewSession(t, "ask", rx, true, ed)

	r := promptTurn(t, c, id, twoFilesAndNew)
	if r.StopReason != "end_turn" {
		t.Fatalf("turn = %+v", r)
	}
	ed.mu.Lock()
	asked := ed.asked
	ed.mu.Unlock()
	if len(asked) != 0 {
		t.Errorf("permission asked for %v; the review is the question", asked)
	}
	reqs := ed.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d applyEdit requests, want 3", len(reqs))
	}
	for i, req := range reqs {
		a, ok := req.Edit.ChangeAnnotations["rx-review"]
		if !ok || !a.NeedsConfirmation || a.Label != "Reasonix: apply_edit" || !strings.Contains(a.Description, e.ws) || !strings.Contains(a.Description, "Edit") {
			t.Errorf("request %d annotations = %+v", i, req.Edit.ChangeAnnotations)
		}
		for _, rc := range req.Edit.DocumentChanges {
			var ch docChange
			_ = json.Unmarshal(rc, &ch)
			if ch.Kind != "" && ch.AnnotationID != "rx-review" {
				t.Errorf("request %d: %s without the annotation", i, rc)
			}
			for _, te := range ch.Edits {
				if te.AnnotationID != "rx-review" {
					t.Errorf("request %d: edit without the annotation: %s", i, rc)
				}
			}
		}
	}
	outs := toolOutputs(c, id)
	if len(outs) != 3 || !strings.HasPrefix(outs[0], "completed: edited a.txt") || !strings.Contains(outs[0], "the user reviewed it") ||
		outs[1] != "failed: the user rejected the edit to b.txt; it was not applied" || !strings.HasPrefix(outs[2], "completed: wrote c.txt") {
		t.Errorf("tool results:\n%s", strings.Join(outs, "\n"))
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")) + readFile(t, filepath.Join(e.ws, "b.txt")) + readFile(t, filepath.Join(e.ws, "c.txt")); got != "one\nTWO\nthree\nbee\nnew file\n" {
		t.Errorf("files after the turn: %q", got)
	}
	if r.Turn != 1 || len(r.Edits) != 2 || r.Edits[0].Path != filepath.Join(e.ws, "a.txt") || r.Edits[0].Created || r.Edits[1].Path != filepath.Join(e.ws, "c.txt") || !r.Edits[1].Created {
		t.Errorf("prompt result edits = %+v", r)
	}
	// A turn without edits lists none.
	if r := promptTurn(t, c, id, "just talk"); len(r.Edits) != 0 || r.Turn != 0 {
		t.Errorf("turn without edits = %+v", r)
	}

	// Undo: a.txt back, c.txt deleted, through one labelled applyEdit.
	var u undoResult
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, &u); err != nil {
		t.Fatal(err)
	}
	if u.Turn != 1 || len(u.Restored) != 2 || len(u.Skipped) != 0 {
		t.Errorf("undo = %+v", u)
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "c.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt after undo: %v", err)
	}
	reqs = ed.requests()
	if last := reqs[len(reqs)-1]; last.Label != "Reasonix: undo turn 1" || len(last.Edit.ChangeAnnotations) != 0 {
		t.Errorf("undo's applyEdit = %+v", last)
	}
	err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, nil)
	if rpcCode(err) != lspclient.CodeInvalidParams || !strings.Contains(err.Error(), "nothing to undo") {
		t.Errorf("second undo: %v", err)
	}

	// Refused while a turn runs (here: one waiting for a permission).
	promptTurn(t, c, id, `call apply_edit {"path": "a.txt", "edits": [{"oldText": "one", "newText": "1"}]}`)
	ed.mu.Lock()
	ed.release, ed.asking = make(chan struct{}), make(chan struct{}, 1)
	ed.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		done <- c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": id, "prompt": `call run_command {"command": ["true"]}`}, nil)
	}()
	<-ed.asking
	err = c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, nil)
	if rpcCode(err) != lspclient.CodeInvalidRequest || !strings.Contains(err.Error(), "a turn is running") {
		t.Errorf("undo during a turn: %v", err)
	}
	close(ed.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, nil); err != nil {
		t.Errorf("undo after the turn: %v", err)
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt after the last undo: %q", got)
	}
	shutdownExit(t, c)
}

// Undo leaves a file the user changed since the turn alone, and says so,
// unless forced; it undoes turns one after another, newest first; and it
// is refused while a turn runs.
func TestServeUndoTurn(t *testing.T) {
	t.Parallel()
	ed := &diskEditor{}
	e, c, id := reviewSession(t, "yolo", fullRx(), true, ed)
	a, b := filepath.Join(e.ws, "a.txt"), filepath.Join(e.ws, "b.txt")
	promptTurn(t, c, id, `call apply_edit {"path": "a.txt", "edits": [{"oldText": "one", "newText": "ONE"}]}`)
	r := promptTurn(t, c, id, "call apply_edit {\"path\": \"a.txt\", \"edits\": [{\"oldText\": \"three\", \"newText\": \"THREE\"}]}\ncall apply_edit {\"path\": \"b.txt\", \"content\": \"B\\n\"}")
	if r.Turn != 2 || len(r.Edits) != 2 {
		t.Fatalf("turn 2 = %+v", r)
	}
	for _, req := range ed.requests() {
		if len(req.Edit.ChangeAnnotations) != 0 {
			t.Errorf("yolo edit with annotations: %+v", req.Edit.ChangeAnnotations)
		}
	}
	// The user changes b.txt after the turn.
	if err := os.WriteFile(b, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var u undoResult
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, &u); err != nil {
		t.Fatal(err)
	}
	if u.Turn != 2 || len(u.Restored) != 1 || u.Restored[0] != a || len(u.Skipped) != 1 || u.Skipped[0].Path != b || !strings.Contains(u.Skipped[0].Reason, "changed since the turn") {
		t.Errorf("undo = %+v", u)
	}
	if got := readFile(t, a) + readFile(t, b); got != "ONE\ntwo\nthree\nmine\n" {
		t.Errorf("after undo of turn 2: %q", got)
	}
	// Until its skipped file is restored (force), turn 2 is the one to undo.
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, &u); err != nil || u.Turn != 2 || len(u.Restored) != 0 || len(u.Skipped) != 1 || u.Skipped[0].Path != b {
		t.Fatalf("undo again without force = %+v, %v", u, err)
	}
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id, "force": true}, &u); err != nil || u.Turn != 2 || len(u.Restored) != 1 || u.Restored[0] != b || len(u.Skipped) != 0 {
		t.Fatalf("forced undo of turn 2 = %+v, %v", u, err)
	}
	if got := readFile(t, b); got != "bee\n" {
		t.Errorf("b.txt after the forced undo of turn 2: %q", got)
	}
	if err := os.WriteFile(b, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, &u); err != nil || u.Turn != 1 {
		t.Fatalf("undo of turn 1 = %+v, %v", u, err)
	}
	if got := readFile(t, a); got != "one\ntwo\nthree\n" {
		t.Errorf("after undo of turn 1: %q", got)
	}

	// Forced, a changed file is restored too.
	promptTurn(t, c, id, `call apply_edit {"path": "b.txt", "content": "agent\n"}`)
	if err := os.WriteFile(b, []byte("user again\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id, "force": true}, &u); err != nil || len(u.Restored) != 1 || len(u.Skipped) != 0 {
		t.Fatalf("forced undo = %+v, %v", u, err)
	}
	if got := readFile(t, b); got != "mine\n" {
		t.Errorf("after forced undo: %q", got)
	}

	shutdownExit(t, c)
}

// Without workspace/applyEdit the bridge writes edits to disk and undoes
// them there, deleting a file the turn created.
func TestServeUndoTurnOnDisk(t *testing.T) {
	t.Parallel()
	e, c, id := reviewSession(t, "yolo", fullRx(), false, &diskEditor{})
	r := promptTurn(t, c, id, "call apply_edit {\"path\": \"a.txt\", \"content\": \"all new\\n\"}\ncall apply_edit {\"path\": \"d.txt\", \"content\": \"dee\\n\"}")
	if len(r.Edits) != 2 || !r.Edits[1].Created || readFile(t, filepath.Join(e.ws, "d.txt")) != "dee\n" {
		t.Fatalf("turn = %+v", r)
	}
	var u undoResult
	if err := c.Call(ctxT(t), "rx/session/undoTurn", map[string]any{"sessionId": id}, &u); err != nil || len(u.Restored) != 2 {
		t.Fatalf("undo = %+v, %v", u, err)
	}
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "one\ntwo\nthree\n" {
		t.Errorf("a.txt after undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "d.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("d.txt after undo: %v", err)
	}
	shutdownExit(t, c)
}
