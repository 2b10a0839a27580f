package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// uiRequest is what rx/ui/request carries.
type uiRequest struct {
	Plugin     string `json:"plugin"`
	SurfaceID  string `json:"surfaceId"`
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Message    string `json:"message"`
	Fields     []struct {
		Key      string   `json:"key"`
		Label    string   `json:"label"`
		Kind     string   `json:"kind"`
		Options  []string `json:"options"`
		Required bool     `json:"required"`
		Default  any      `json:"default"`
	} `json:"fields"`
}

// scriptedUI answers rx/ui/request by field key and records the requests.
type scriptedUI struct {
	mu      sync.Mutex
	answers map[string]any
	seen    []uiRequest
}

func (s *scriptedUI) handle(_ context.Context, raw json.RawMessage) (any, error) {
	var r uiRequest
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, r)
	values := map[string]any{}
	for _, f := range r.Fields {
		if v, ok := s.answers[f.Key+"@"+f.Label]; ok {
			values[f.Key] = v
		} else if v, ok := s.answers[f.Key]; ok {
			values[f.Key] = v
		}
	}
	if len(values) == 0 {
		return map[string]any{"cancelled": true}, nil
	}
	return map[string]any{"cancelled": false, "values": values}, nil
}

func runAction(t *testing.T, c *lspclient.Client, args ...any) (map[string]any, error) {
	t.Helper()
	var res map[string]any
	err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": args}, &res)
	return res, err
}

func TestServeActionsNative(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello", "uikit")
	c := e.start()
	ui := &scriptedUI{answers: map[string]any{"value@How should I greet you?": "pirate", "value@Your name": "Ada"}}
	c.Handle("rx/ui/request", ui.handle)
	initialized(t, c, clientCaps(fullRx(), nil))

	var list struct {
		Generation int64 `json:"generation"`
		Actions    []struct {
			Name, Plugin, ActionID, Label string
		} `json:"actions"`
	}
	if err := c.Call(ctxT(t), "rx/actions", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list.Actions {
		names = append(names, a.Name)
	}
	want := "/hello:greet /uikit:ask-all /uikit:ask-big /uikit:confirm /uikit:pick /uikit:pick-then-publish /uikit:secret /uikit:show-all"
	if got := strings.Join(names, " "); got != want || list.Generation == 0 || list.Actions[0].Label != "Greet me" {
		t.Fatalf("rx/actions = %d %s", list.Generation, got)
	}

	res, err := runAction(t, c, "/hello:greet")
	if err != nil {
		t.Fatal(err)
	}
	if res["accepted"] != true || res["message"] != "Ahoy, Ada!" {
		t.Fatalf("greet = %v", res)
	}
	if len(ui.seen) != 2 || ui.seen[0].Kind != "select" || ui.seen[1].Kind != "input" || ui.seen[0].Generation != list.Generation || ui.seen[0].Plugin != "hello" {
		t.Fatalf("requests = %+v", ui.seen)
	}
	if _, err := c.Wait(ctxT(t), "rx/ui/surface", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `"kind":"notification"`) && strings.Contains(string(p), "Ahoy, Ada!")
	}); err != nil {
		t.Fatal(err)
	}

	// Args pre-fill; a native form asks its fields at once.
	ui.answers = map[string]any{"value@Style?": "b", "value@Which?": []string{"x", "z"}, "value@Name?": "Bo", "value@Sure?": true, "city": "Oslo", "pet": "dog"}
	res, err = runAction(t, c, "/uikit:ask-all")
	if err != nil {
		t.Fatal(err)
	}
	if res["message"] != `select=b multiselect=x,z input=Bo confirm=true form.city="Oslo" form.pet="dog"` {
		t.Fatalf("ask-all = %v", res)
	}
	last := ui.seen[len(ui.seen)-1]
	if last.Title != "Profile" || len(last.Fields) != 2 || !last.Fields[0].Required {
		t.Fatalf("form request = %+v", last)
	}

	// Errors.
	if _, err := runAction(t, c, "/nope:x"); rpcCode(err) != lspclient.CodeInvalidParams || !strings.Contains(err.Error(), `unknown action "/nope:x"; available: /hello:greet, /uikit:ask-all`) {
		t.Errorf("unknown action: %v", err)
	}
	// No name: the user is asked which action (natively); dismissed,
	// nothing runs.
	if res, err := runAction(t, c); err != nil || res != nil {
		t.Errorf("no name, question dismissed: %v %v", res, err)
	}
	if q := ui.seen[len(ui.seen)-1]; q.Title != "Run which plugin action?" || len(q.Fields) != 1 || strings.Join(q.Fields[0].Options, " ") != "/hello:greet /uikit:ask-all /uikit:ask-big /uikit:confirm /uikit:pick /uikit:pick-then-publish /uikit:secret /uikit:show-all" {
		t.Errorf("the action question = %+v", q)
	}
	if _, err := runAction(t, c, "/hello:greet", map[string]any{"name": 3}); rpcCode(err) != lspclient.CodeInvalidParams {
		t.Errorf("non-string args: %v", err)
	}
	err = c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.nope"}, nil)
	if rpcCode(err) != lspclient.CodeInvalidParams {
		t.Errorf("unknown command: %v", err)
	}
	shutdownExit(t, c)
}

func TestServeSurfacesNative(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "uikit")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	if res, err := runAction(t, c, "/uikit:show-all"); err != nil || res["message"] != "shown" {
		t.Fatalf("show-all = %v %v", res, err)
	}
	var kinds []string
	var gen float64
	for _, m := range c.Messages("rx/ui/surface") {
		var s map[string]any
		_ = json.Unmarshal(m.Params, &s)
		kinds = append(kinds, s["kind"].(string)+":"+s["surfaceId"].(string))
		gen = s["generation"].(float64)
		if s["kind"] == "card" {
			b, _ := json.Marshal(s["payload"])
			if !strings.Contains(string(b), `"actionId":"ask-all"`) || strings.Contains(string(b), "undeclared") {
				t.Errorf("card actions not filtered to declared ones: %s", b)
			}
		}
	}
	if got := strings.Join(kinds, " "); got != "status:st status:st notification:note card:card form:f-1" {
		t.Fatalf("surfaces = %s", got)
	}
	// The form's answer goes back with rx/ui/submit.
	var sub map[string]any
	if err := c.Call(ctxT(t), "rx/ui/submit", map[string]any{"plugin": "uikit", "surfaceId": "f-1", "generation": gen, "values": map[string]any{"stars": "5"}}, &sub); err != nil || sub["accepted"] != true {
		t.Fatalf("submit = %v %v", sub, err)
	}
	if _, err := c.Wait(ctxT(t), "rx/ui/surface", func(p json.RawMessage) bool { return strings.Contains(string(p), `submitted f-1`) }); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/ui/submit", map[string]any{"plugin": "uikit", "surfaceId": "f-1", "generation": gen - 1, "values": map[string]any{}}, &sub); err != nil || sub["accepted"] != false {
		t.Fatalf("stale submit = %v %v", sub, err)
	}
	shutdownExit(t, c)
}

// TestServeFallbacks: a plain LSP client gets window/showMessageRequest
// for confirms and small selects, window/showMessage for the rest, and
// questions it cannot show are answered cancelled with a message.
func TestServeFallbacks(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello", "uikit")
	c := e.start()
	c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			Message string
			Actions []struct{ Title string }
		}
		_ = json.Unmarshal(raw, &p)
		switch {
		case strings.Contains(p.Message, "Proceed?"):
			return map[string]string{"title": "Yes"}, nil
		case strings.Contains(p.Message, "Which one?"):
			return map[string]string{"title": p.Actions[1].Title}, nil
		}
		return nil, nil // dismissed
	})
	initialized(t, c, clientCaps(nil, nil))

	if res, err := runAction(t, c, "/uikit:confirm"); err != nil || res["message"] != "confirmed true" {
		t.Errorf("confirm = %v %v", res, err)
	}
	if res, err := runAction(t, c, "/uikit:pick"); err != nil || res["message"] != "picked green" {
		t.Errorf("pick = %v %v", res, err)
	}
	res, err := runAction(t, c, "/uikit:ask-big")
	if err != nil || res["accepted"] != false {
		t.Errorf("ask-big = %v %v", res, err)
	}
	if _, err := c.Wait(ctxT(t), "window/showMessage", func(p json.RawMessage) bool {
		return strings.Contains(string(p), `uikit asked \"Pick a number\", which this editor cannot show; use an rx-bridge client (VS Code or Neovim) to answer plugin questions`)
	}); err != nil {
		t.Error(err)
	}
	// hello's input after a dismissed select: cancelled, never a hang.
	res, err = runAction(t, c, "/hello:greet")
	if err != nil || res["accepted"] != false || res["message"] != "greeting cancelled" {
		t.Errorf("greet = %v %v", res, err)
	}
	// Surfaces as text.
	if _, err := runAction(t, c, "/uikit:show-all"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []struct{ method, text string }{
		{"window/logMessage", "uikit: working — half"},
		{"window/logMessage", "uikit: working — done"},
		{"window/showMessage", `uikit: Heads up\nbody`},
		{"window/showMessage", `uikit: Card\n**bold**\nk: v`},
		// A published form of small selects is asked with buttons.
		{"window/showMessageRequest", `uikit: Feedback: Stars`},
	} {
		if _, err := c.Wait(ctxT(t), want.method, func(p json.RawMessage) bool { return strings.Contains(string(p), want.text) }); err != nil {
			t.Errorf("%s %q: %v", want.method, want.text, err)
		}
	}
	if n := len(c.Messages("rx/ui/surface")) + len(c.Messages("rx/ui/request")); n != 0 {
		t.Errorf("%d rx/ui messages sent to a client without the capability", n)
	}
	shutdownExit(t, c)
}

func TestServeRedactsPluginText(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "uikit")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	res, err := runAction(t, c, "/uikit:secret")
	if err != nil {
		t.Fatal(err)
	}
	if msg := res["message"].(string); strings.Contains(msg, "ghp_") {
		t.Errorf("action message not redacted: %s", msg)
	}
	m, err := c.Wait(ctxT(t), "rx/ui/surface", func(p json.RawMessage) bool { return strings.Contains(string(p), `"surfaceId":"leak"`) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(m.Params), "sk-abc") {
		t.Errorf("surface not redacted: %s", m.Params)
	}
	shutdownExit(t, c)
}

// TestServeReload: rx.reload swaps in a new generation, announces it with
// rx/actionsChanged (the commands, registered once, stay as they are),
// and a question of the old generation is withdrawn: the plugin sees it
// cancelled and its later publish is not accepted.
func TestServeReload(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "uikit")
	c := e.start()
	asked := make(chan struct{}, 1)
	c.Handle("rx/ui/request", func(ctx context.Context, _ json.RawMessage) (any, error) {
		asked <- struct{}{}
		<-ctx.Done() // a slow user; the bridge withdraws the question
		return map[string]any{"cancelled": true}, nil
	})
	var registered sync.WaitGroup
	registered.Add(1)
	var once sync.Once
	c.Handle("client/registerCapability", func(context.Context, json.RawMessage) (any, error) {
		once.Do(registered.Done)
		return nil, nil
	})
	res := initialized(t, c, clientCaps(fullRx(), map[string]any{"workspace": map[string]any{"executeCommand": map[string]any{"dynamicRegistration": true}}}))
	_ = res
	first, _ := c.Wait(ctxT(t), "rx/actionsChanged", nil)
	var gen1 struct{ Generation int64 }
	_ = json.Unmarshal(first.Params, &gen1)
	registered.Wait()

	pending := c.CallAsync(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.runAction", "arguments": []any{"/uikit:pick-then-publish"}})
	<-asked
	var rel struct {
		Generation int64    `json:"generation"`
		Warnings   []string `json:"warnings"`
	}
	if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, &rel); err != nil {
		t.Fatal(err)
	}
	if rel.Generation <= gen1.Generation || rel.Warnings == nil {
		t.Fatalf("reload = %+v after %d", rel, gen1.Generation)
	}
	var out struct {
		Raw json.RawMessage
		Err error
	}
	select {
	case r := <-pending:
		out.Raw, out.Err = r.Raw, r.Err
	case <-time.After(scaled(20 * time.Second)):
		t.Fatal("the old generation's question was not withdrawn")
	}
	if out.Err != nil || !strings.Contains(string(out.Raw), `publish accepted=false`) || !strings.Contains(string(out.Raw), `dismissed`) {
		t.Fatalf("old action = %s %v", out.Raw, out.Err)
	}
	if n := len(c.Messages("rx/actionsChanged")); n != 2 {
		t.Errorf("%d rx/actionsChanged, want 2", n)
	}
	if n := len(c.Messages("$/cancelRequest")); n != 1 {
		t.Errorf("%d $/cancelRequest for the withdrawn question, want 1", n)
	}
	shutdownExit(t, c)
	if n := len(c.Messages("client/registerCapability")); n != 1 {
		t.Errorf("%d client/registerCapability, want 1 (a reload that keeps the commands registers nothing)", n)
	}
	if n := len(c.Messages("client/unregisterCapability")); n != 0 {
		t.Errorf("%d client/unregisterCapability, want 0", n)
	}
}

func TestServeTrace(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello")
	c := e.start()
	c.Handle("rx/ui/request", answer(map[string]any{"cancelled": false, "values": map[string]any{"value": "formal"}}))
	initialized(t, c, clientCaps(fullRx(), nil))
	if err := c.Notify(ctxT(t), "$/setTrace", map[string]any{"value": "verbose"}); err != nil {
		t.Fatal(err)
	}
	if _, err := runAction(t, c, "/hello:greet"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		// initialize's trace counts too.
		c2 := e.start()
		var res map[string]any
		if err := c2.Call(ctxT(t), "initialize", map[string]any{"capabilities": clientCaps(fullRx(), nil), "trace": "messages"}, &res); err != nil {
			t.Fatal(err)
		}
		_ = c2.Notify(ctxT(t), "initialized", map[string]any{})
		c2.Handle("rx/ui/request", answer(map[string]any{"cancelled": true}))
		if _, err := c2.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := runAction(t, c2, "/hello:greet"); err != nil {
			t.Fatal(err)
		}
		m, err := c2.Wait(ctxT(t), "$/logTrace", nil)
		if err != nil || strings.Contains(string(m.Params), `"verbose"`) {
			t.Errorf("trace at messages: %s %v", m.Params, err)
		}
		shutdownExit(t, c2)
	}()
	var msgs []string
	for _, m := range c.Messages("$/logTrace") {
		var p struct{ Message, Verbose string }
		_ = json.Unmarshal(m.Params, &p)
		msgs = append(msgs, p.Message)
		if p.Verbose == "" {
			t.Errorf("verbose trace without the frame: %s", m.Params)
		}
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{"hello -> extension/ui/action id=", "hello <- host/ui/request id=1", "hello -> result id=1", "hello <- result id="} {
		if !strings.Contains(got, want) {
			t.Errorf("trace lacks %q:\n%s", want, got)
		}
	}
	shutdownExit(t, c)
}

// TestServePlainClientCodeActions: a plain LSP client (eglot, Helix, bare
// vim.lsp) finds the plugins' UI actions as source code actions in any
// document and runs them with the command they carry; rx.runAction
// without arguments asks which action to run; the action's message is
// shown, as such a client drops a command's result.
func TestServePlainClientCodeActions(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "uikit")
	c := e.start()
	c.Handle("window/showMessageRequest", func(_ context.Context, raw json.RawMessage) (any, error) {
		var p struct {
			Message string
			Actions []struct{ Title string }
		}
		_ = json.Unmarshal(raw, &p)
		switch {
		case p.Message == "rx-bridge: Run which plugin action?":
			return map[string]string{"title": "/uikit:pick"}, nil
		case strings.Contains(p.Message, "Proceed?"):
			return map[string]string{"title": "Yes"}, nil
		case strings.Contains(p.Message, "Which one?"):
			return map[string]string{"title": p.Actions[1].Title}, nil
		}
		return nil, nil
	})
	var res struct {
		Capabilities struct {
			CodeActionProvider struct {
				CodeActionKinds []string `json:"codeActionKinds"`
			} `json:"codeActionProvider"`
		} `json:"capabilities"`
	}
	if err := c.Call(ctxT(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": map[string]any{}}, &res); err != nil {
		t.Fatal(err)
	}
	if got := res.Capabilities.CodeActionProvider.CodeActionKinds; len(got) != 1 || got[0] != "source.rx" {
		t.Errorf("codeActionProvider kinds = %v", got)
	}
	_ = c.Notify(ctxT(t), "initialized", map[string]any{})
	waitGeneration(t, c, map[string]any{})

	type action struct {
		Title, Kind string
		Command     struct {
			Command   string
			Arguments []any
		}
	}
	codeActions := func(only ...string) []action {
		t.Helper()
		ctx := map[string]any{"diagnostics": []any{}}
		if only != nil {
			ctx["only"] = only
		}
		var out []action
		uri := "file://" + e.ws + "/any.txt"
		if err := c.Call(ctxT(t), "textDocument/codeAction", map[string]any{"textDocument": map[string]string{"uri": uri},
			"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "context": ctx}, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	all := codeActions()
	var confirm *action
	for i, a := range all {
		if a.Kind != "source.rx" || a.Command.Command != "rx.runAction" || len(a.Command.Arguments) != 1 {
			t.Errorf("code action %+v", a)
		}
		if a.Command.Arguments[0] == "/uikit:confirm" {
			confirm = &all[i]
		}
	}
	if confirm == nil || !strings.Contains(confirm.Title, "/uikit:confirm") {
		t.Fatalf("no code action for /uikit:confirm in %+v", all)
	}
	for _, tt := range []struct {
		only []string
		want int
	}{{[]string{"source"}, len(all)}, {[]string{"source.rx"}, len(all)}, {[]string{"quickfix"}, 0}, {[]string{"source.organizeImports"}, 0}} {
		if got := len(codeActions(tt.only...)); got != tt.want {
			t.Errorf("only %v: %d code actions, want %d", tt.only, got, tt.want)
		}
	}

	// The client runs the code action's command as it came.
	var out map[string]any
	if err := c.Call(ctxT(t), "workspace/executeCommand", map[string]any{"command": confirm.Command.Command, "arguments": confirm.Command.Arguments}, &out); err != nil || out["message"] != "confirmed true" {
		t.Fatalf("code action command = %v %v", out, err)
	}
	if _, err := c.Wait(ctxT(t), "window/showMessage", func(p json.RawMessage) bool { return strings.Contains(string(p), "uikit: confirmed true") }); err != nil {
		t.Error(err)
	}
	// No argument: the user picks the action.
	if out, err := runAction(t, c); err != nil || out["message"] != "picked green" {
		t.Fatalf("rx.runAction without arguments = %v %v", out, err)
	}
	shutdownExit(t, c)
}
