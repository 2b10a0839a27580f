package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/agent"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

const echoSmall = "plugin/echo-provider/echo/small"

func TestServeModelsAndLMChat(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	var models struct {
		Models []struct {
			Ref    string
			Origin struct{ Kind, ID string }
			Tools  bool
		}
		Default string
	}
	if err := c.Call(ctxT(t), "rx/models", nil, &models); err != nil {
		t.Fatal(err)
	}
	if len(models.Models) != 2 || models.Models[1].Ref != echoSmall || models.Models[1].Origin.Kind != "plugin" || models.Models[1].Origin.ID != "echo-provider" || models.Default != models.Models[0].Ref {
		t.Fatalf("rx/models = %+v", models)
	}
	var res struct {
		Text         string
		FinishReason string
		Usage        struct{ TotalTokens int }
	}
	err := c.Call(ctxT(t), "rx/lm/chat", map[string]any{"requestId": "lm-1", "model": echoSmall, "messages": []map[string]string{{"role": "user", "content": "hello there"}}}, &res)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "hello there" || res.FinishReason != "stop" || res.Usage.TotalTokens == 0 {
		t.Fatalf("rx/lm/chat = %+v", res)
	}
	var text strings.Builder
	for _, m := range c.Messages("rx/lm/chunk") {
		var ch struct {
			RequestID string
			Chunk     struct{ Type, Text string }
		}
		_ = json.Unmarshal(m.Params, &ch)
		if ch.RequestID != "lm-1" {
			t.Errorf("chunk for %q", ch.RequestID)
		}
		text.WriteString(ch.Chunk.Text)
	}
	if text.String() != "hello there" {
		t.Errorf("chunks spell %q", text.String())
	}
	err = c.Call(ctxT(t), "rx/lm/chat", map[string]any{"model": "plugin/nope/x/y", "messages": []any{}}, nil)
	if rpcCode(err) != lspclient.CodeInvalidParams || !strings.Contains(err.Error(), `"plugin/nope/x/y"`) || !strings.Contains(err.Error(), echoSmall) {
		t.Errorf("unknown model: %v", err)
	}
	shutdownExit(t, c)
}

// permissionUI allows every tool call and records what it was asked.
type permissionUI struct {
	mu    sync.Mutex
	asked []string
	edits []json.RawMessage
}

func (p *permissionUI) install(c *lspclient.Client) {
	c.Handle("rx/session/requestPermission", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct {
			ToolCall struct{ Title, Kind string }
			Options  []struct{ OptionID string }
		}
		_ = json.Unmarshal(raw, &r)
		p.mu.Lock()
		p.asked = append(p.asked, r.ToolCall.Kind+" "+r.ToolCall.Title)
		p.mu.Unlock()
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow"}}, nil
	})
	c.Handle("workspace/applyEdit", func(_ context.Context, raw json.RawMessage) (any, error) {
		p.mu.Lock()
		p.edits = append(p.edits, raw)
		p.mu.Unlock()
		return map[string]any{"applied": true}, nil
	})
}

type promptResult struct {
	StopReason string
	Text       string
}

// newSession starts a session on the default model and returns its id.
func newSession(t *testing.T, c *lspclient.Client) string {
	t.Helper()
	var sess struct{ SessionID string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	return sess.SessionID
}

func prompt(t *testing.T, c *lspclient.Client, id, text string) promptResult {
	t.Helper()
	var r promptResult
	if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": id, "prompt": text}, &r); err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return r
}

func updatesOf(c *lspclient.Client, id string) []string {
	var out []string
	for _, m := range c.Messages("rx/session/update") {
		var u struct {
			SessionID string
			Update    map[string]any
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID == id {
			out = append(out, u.Update["sessionUpdate"].(string))
		}
	}
	return out
}

func TestServeSession(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	c := e.start()
	ui := &permissionUI{}
	ui.install(c)
	initialized(t, c, clientCaps(fullRx(), map[string]any{"workspace": map[string]any{"applyEdit": true}, "window": map[string]any{"workDoneProgress": true}}))

	var sess struct{ SessionID, Model string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	if sess.Model != echoSmall {
		t.Fatalf("session = %+v", sess)
	}
	if r := prompt(t, c, sess.SessionID, "hello world"); r.StopReason != "end_turn" || r.Text != "hello world" {
		t.Fatalf("prompt = %+v", r)
	}
	// The echo model streams two chunks; a slow reader may get them
	// merged into one (adjacent deltas coalesce, issue 28).
	if got := strings.Join(updatesOf(c, sess.SessionID), " "); !strings.HasPrefix(got, "user_message_chunk agent_message_chunk agent_message_chunk usage") && !strings.HasPrefix(got, "user_message_chunk agent_message_chunk usage") {
		t.Errorf("updates = %s", got)
	}

	// An open, incrementally edited buffer is what read_file sees.
	uri := "file://" + e.ws + "/notes.txt"
	_ = c.Notify(ctxT(t), "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "text", "version": 1, "text": "on disk? no\n"}})
	_ = c.Notify(ctxT(t), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 8}}, "text": "only in the buffer"}}})
	r := prompt(t, c, sess.SessionID, `call read_file {"path": "notes.txt"}`)
	if r.StopReason != "end_turn" || !strings.Contains(r.Text, "only in the buffer no") {
		t.Fatalf("read_file turn = %+v", r)
	}
	// Once closed, the buffer is gone and the disk is read.
	if err := os.WriteFile(filepath.Join(e.ws, "notes.txt"), []byte("the disk copy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = c.Notify(ctxT(t), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	if r := prompt(t, c, sess.SessionID, `call read_file {"path": "notes.txt"}`); !strings.Contains(r.Text, "the disk copy") {
		t.Fatalf("read_file after didClose = %+v", r)
	}
	// A new file lands in the editor through workspace/applyEdit.
	r = prompt(t, c, sess.SessionID, `call apply_edit {"path": "new.txt", "content": "made by the agent"}`)
	if r.StopReason != "end_turn" {
		t.Fatalf("apply_edit turn = %+v", r)
	}
	ui.mu.Lock()
	asked, edits := strings.Join(ui.asked, "; "), ui.edits
	ui.mu.Unlock()
	// ask mode asks about the edit, never about the reads (the engine's
	// approval table, docs/ARCHITECTURE.md).
	if strings.Contains(asked, "read ") || !strings.Contains(asked, "edit ") {
		t.Errorf("permission asked for: %s", asked)
	}
	if len(edits) != 1 || !strings.Contains(string(edits[0]), `"kind":"create"`) || !strings.Contains(string(edits[0]), "made by the agent") || !strings.Contains(string(edits[0]), `"label":"Reasonix: apply_edit"`) {
		t.Errorf("applyEdit = %s", edits)
	}
	kinds := strings.Join(updatesOf(c, sess.SessionID), " ")
	for _, k := range []string{"tool_call", "tool_call_update", "permission"} {
		if !strings.Contains(kinds, k) {
			t.Errorf("no %s update in %s", k, kinds)
		}
	}
	if len(c.Messages("$/progress")) == 0 {
		t.Error("no $/progress for the turns")
	}

	// list, close, load (replays), delete.
	var list struct {
		Sessions []struct{ SessionID, Title, Model string }
	}
	if err := c.Call(ctxT(t), "rx/session/list", nil, &list); err != nil || len(list.Sessions) != 1 || list.Sessions[0].Title != "hello world" {
		t.Fatalf("list = %+v %v", list, err)
	}
	if err := c.Call(ctxT(t), "rx/session/close", map[string]any{"sessionId": sess.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	before := len(updatesOf(c, sess.SessionID))
	if err := c.Call(ctxT(t), "rx/session/load", map[string]any{"sessionId": sess.SessionID}, &sess); err != nil {
		t.Fatal(err)
	}
	if after := len(updatesOf(c, sess.SessionID)); after <= before {
		t.Errorf("load replayed %d updates", after-before)
	}
	if err := c.Call(ctxT(t), "rx/session/setModel", map[string]any{"sessionId": sess.SessionID, "model": "plugin/echo-provider/echo/large"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/setModel", map[string]any{"sessionId": sess.SessionID, "model": "nope/x"}, nil); rpcCode(err) != lspclient.CodeInvalidParams {
		t.Errorf("unknown model: %v", err)
	}
	if err := c.Call(ctxT(t), "rx/session/delete", map[string]any{"sessionId": sess.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": "x"}, nil); rpcCode(err) != lspclient.CodeInvalidParams {
		t.Errorf("prompt after delete: %v", err)
	}
	shutdownExit(t, c)
}

// An editor closing a chat and resuming its session at once (Neovim's
// :Rx sessions right after the chat's buffer is wiped) sends
// rx/session/close and rx/session/load back to back. The bridge serves
// requests concurrently, but the load waits for the close read before it:
// it used to fail with "the session is already open" or "the session is
// open in another process".
func TestServeLoadRightAfterClose(t *testing.T) {
	t.Parallel()
	_, c := echoServe(t)
	frame := func(id, method, sid string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%q,"params":{"sessionId":%q}}`, id, method, sid)
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	sid := newSession(t, c)
	for i := range 8 {
		if r := prompt(t, c, sid, fmt.Sprintf("turn %d", i)); r.StopReason != "end_turn" {
			t.Fatalf("prompt %d = %+v", i, r)
		}
		closeID, loadID := fmt.Sprintf("close-%d", i), fmt.Sprintf("load-%d", i)
		if err := c.WriteRaw([]byte(frame(closeID, "rx/session/close", sid) + frame(loadID, "rx/session/load", sid))); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{closeID, loadID} {
			body, err := c.RawAnswer(ctxT(t), id)
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			if strings.Contains(body, `"error"`) {
				t.Fatalf("round %d: %s answered %s", i, id, body)
			}
		}
	}
	shutdownExit(t, c)
}

// TestServeSlowEditorDoesNotStallSessions: while the user sits on a
// quick-pick, another session's turn streams and ends.
func TestServeSlowEditorDoesNotStallSessions(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello", "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	release := make(chan struct{})
	asked := make(chan struct{}, 4)
	inputs := make(chan string, 1)
	c.Handle("rx/ui/request", func(ctx context.Context, raw json.RawMessage) (any, error) {
		if strings.Contains(string(raw), `"kind":"input"`) {
			inputs <- string(raw)
			return map[string]any{"cancelled": false, "values": map[string]any{"value": "Ada"}}, nil
		}
		asked <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"cancelled": false, "values": map[string]any{"value": "formal"}}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	greet := c.CallAsync(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/hello:greet", map[string]string{"name": "Bo"}}})
	<-asked
	sid := newSession(t, c)
	r := prompt(t, c, sid, "streams while a quick-pick waits")
	if r.Text != "streams while a quick-pick waits" {
		t.Fatalf("prompt = %+v", r)
	}
	select {
	case <-greet:
		t.Fatal("the action finished before its quick-pick was answered")
	default:
	}
	close(release)
	res := <-greet
	if res.Err != nil || !strings.Contains(string(res.Raw), "Good day, Ada.") {
		t.Fatalf("greet = %s %v", res.Raw, res.Err)
	}
	if in := <-inputs; !strings.Contains(in, `"default":"Bo"`) {
		t.Errorf("the action's args did not pre-fill the input: %s", in)
	}
	shutdownExit(t, c)
}

// TestServeSessionCancel: rx/session/cancel while the turn waits on a
// permission prompt withdraws the prompt and ends the turn as cancelled.
func TestServeSessionCancel(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	c := e.start()
	asked := make(chan struct{}, 1)
	c.Handle("rx/session/requestPermission", func(ctx context.Context, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return map[string]any{"outcome": map[string]string{"outcome": "cancelled"}}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)
	turn := c.CallAsync(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": `call apply_edit {"path": "x", "content": "y"}`})
	<-asked
	if err := c.Notify(ctxT(t), "rx/session/cancel", map[string]any{"sessionId": sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-turn:
		if r.Err != nil || !strings.Contains(string(r.Raw), `"stopReason":"cancelled"`) {
			t.Fatalf("cancelled prompt = %s %v", r.Raw, r.Err)
		}
	case <-time.After(scaled(20 * time.Second)):
		t.Fatal("the turn did not end on cancel")
	}
	if _, err := c.Wait(ctxT(t), "$/cancelRequest", nil); err != nil {
		t.Errorf("the permission prompt was not withdrawn: %v", err)
	}
	shutdownExit(t, c)
}

// TestServeCancelRightAfterPrompt: a cancel read after the prompt but
// before the turn reached the agent still cancels it. The window is held
// open by not answering the turn's window/workDoneProgress/create until
// the cancel has been sent.
func TestServeCancelRightAfterPrompt(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"yolo\"\n")
	c := e.start()
	var sessionID atomic.Value
	sessionID.Store("")
	c.Handle("window/workDoneProgress/create", func(ctx context.Context, _ json.RawMessage) (any, error) {
		if id := sessionID.Load().(string); id != "" {
			// The prompt is being served: cancel before the turn starts.
			if err := c.Notify(ctx, "rx/session/cancel", map[string]any{"sessionId": id}); err != nil {
				return nil, err
			}
		}
		return nil, nil
	})
	initialized(t, c, clientCaps(fullRx(), map[string]any{"window": map[string]any{"workDoneProgress": true}}))
	sid := newSession(t, c)
	sessionID.Store(sid)
	var res struct{ StopReason string }
	if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": "hello there"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "cancelled" {
		t.Fatalf("stopReason %q, want cancelled", res.StopReason)
	}
	shutdownExit(t, c)
}

// TestServeSessionNewTakesTheDefaultModel: with no model configured and
// none named, a session gets the rx/models default (the first ref).
func TestServeSessionNewTakesTheDefaultModel(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	var models struct{ Default string }
	if err := c.Call(ctxT(t), "rx/models", map[string]any{}, &models); err != nil {
		t.Fatal(err)
	}
	var sess struct{ SessionID, Model string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil {
		t.Fatal(err)
	}
	if models.Default != "plugin/echo-provider/echo/large" || sess.Model != models.Default {
		t.Fatalf("rx/models default %q, session model %q", models.Default, sess.Model)
	}
	shutdownExit(t, c)
}

// TestServeCrashedSessionWatcher: a required plugin that only intercepts
// session.start observes sessions; once it has crashed, rx/session/new
// still works. It was also told uiHost headless, as Reasonix tells every
// plugin.
func TestServeCrashedSessionWatcher(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.installHelper("watcher", map[string]any{"required": true, "intercepts": []string{"session.start"}, "capabilities": []string{"ui"}})
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	res, err := runAction(t, c, "/watcher:ui-host")
	if err != nil || res["message"] != "uiHost=headless" {
		t.Fatalf("ui-host = %v, %v", res, err)
	}
	if _, err := runAction(t, c, "/watcher:crash"); err == nil {
		t.Fatal("the crash action answered")
	}
	var sess struct{ SessionID string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &sess); err != nil || sess.SessionID == "" {
		t.Fatalf("rx/session/new with a crashed session watcher = %+v, %v", sess, err)
	}
	shutdownExit(t, c)
}

// TestServeSessionRename: a stored session takes the title the user
// gives it, in every listing (ACP's too: same store), and gives it back.
func TestServeSessionRename(t *testing.T) {
	t.Parallel()
	e, c := echoServe(t)
	sid := newSession(t, c)
	prompt(t, c, sid, "hello world")
	titles := func() []string {
		t.Helper()
		var list struct{ Sessions []struct{ Title string } }
		if err := c.Call(ctxT(t), "rx/session/list", nil, &list); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range list.Sessions {
			out = append(out, s.Title)
		}
		return out
	}
	rename := func(id, title string) error {
		return c.Call(ctxT(t), "rx/session/rename", map[string]any{"sessionId": id, "title": title}, nil)
	}
	for _, tt := range []struct {
		name, id, title string
		code            int // 0: accepted
		want            string
	}{
		{name: "renamed", id: sid, title: "  Refactor the parser ", want: "Refactor the parser"},
		{name: "two lines", id: sid, title: "a\nb", code: lspclient.CodeInvalidParams, want: "Refactor the parser"},
		{name: "too long", id: sid, title: strings.Repeat("é", agent.MaxTitle+1), code: lspclient.CodeInvalidParams, want: "Refactor the parser"},
		{name: "unknown session", id: "20261203T021500-000000000000", title: "x", code: lspclient.CodeInvalidParams, want: "Refactor the parser"},
		{name: "path-like id", id: "../x", title: "x", code: lspclient.CodeInvalidParams, want: "Refactor the parser"},
		{name: "empty gives the first prompt back", id: sid, title: "", want: "hello world"},
	} {
		err := rename(tt.id, tt.title)
		if tt.code == 0 && err != nil || tt.code != 0 && rpcCode(err) != tt.code {
			t.Errorf("%s: rename = %v, want code %d", tt.name, err, tt.code)
		}
		if got := titles(); len(got) != 1 || got[0] != tt.want {
			t.Errorf("%s: titles %q, want %q", tt.name, got, tt.want)
		}
	}
	if err := rename(sid, "kept"); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/session/delete", map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(e.home, "sessions", "*"))
	if len(left) != 0 {
		t.Errorf("files left after delete: %v", left)
	}
	shutdownExit(t, c)
}

// TestServeSessionMode: rx/session/setMode switches a session to plan
// mode (an edit is refused) and back; the mode survives a close and is
// in rx/session/load's result, so an editor can say so (a session left in
// plan mode by an ACP client is not stuck there).
func TestServeSessionMode(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	c := e.start()
	(&permissionUI{}).install(c)
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)
	setMode := func(mode string) error {
		return c.Call(ctxT(t), "rx/session/setMode", map[string]any{"sessionId": sid, "mode": mode}, nil)
	}
	edit := `call apply_edit {"path": "plan.txt", "content": "x"}`
	for _, tt := range []struct {
		mode string
		code int // 0: accepted
	}{
		{mode: "plan"},
		{mode: "yolo", code: lspclient.CodeInvalidParams},
		{mode: "", code: lspclient.CodeInvalidParams},
	} {
		if err := setMode(tt.mode); tt.code == 0 && err != nil || tt.code != 0 && rpcCode(err) != tt.code {
			t.Errorf("setMode %q = %v, want code %d", tt.mode, err, tt.code)
		}
	}
	if err := c.Call(ctxT(t), "rx/session/setMode", map[string]any{"sessionId": "20261203T021500-000000000000", "mode": "plan"}, nil); rpcCode(err) != lspclient.CodeInvalidParams {
		t.Errorf("setMode of an unknown session = %v", err)
	}
	if r := prompt(t, c, sid, edit); !strings.Contains(r.Text, "plan mode") {
		t.Fatalf("an edit in plan mode = %+v", r)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "plan.txt")); err == nil {
		t.Fatal("plan mode wrote plan.txt")
	}
	if err := c.Call(ctxT(t), "rx/session/close", map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	var ref struct{ SessionID, Model, Mode string }
	if err := c.Call(ctxT(t), "rx/session/load", map[string]any{"sessionId": sid}, &ref); err != nil || ref.Mode != "plan" {
		t.Fatalf("load = %+v, %v; want mode plan", ref, err)
	}
	if err := setMode("normal"); err != nil {
		t.Fatal(err)
	}
	if r := prompt(t, c, sid, edit); strings.Contains(r.Text, "plan mode") {
		t.Fatalf("an edit back in normal mode = %+v", r)
	}
	if b, err := os.ReadFile(filepath.Join(e.ws, "plan.txt")); err != nil || string(b) != "x" {
		t.Fatalf("plan.txt = %q, %v", b, err)
	}
	var fresh struct{ SessionID, Mode string }
	if err := c.Call(ctxT(t), "rx/session/new", map[string]any{}, &fresh); err != nil || fresh.Mode != "" {
		t.Fatalf("new = %+v, %v; a normal session has no mode member", fresh, err)
	}
	shutdownExit(t, c)
}
