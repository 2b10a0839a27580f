package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
)

// TestUpdateSinkAskRequestUsesPermissionChoices: without elicitation a
// plugin's select of several answers asks them one at a time, each
// request naming its answer in its title and offering options of two
// kinds (issue 29 item 7: a client that renders options by kind alone
// must tell them apart); the chosen one is the answer (hello's greet:
// formal is the second style; its input offers its default).
func TestUpdateSinkAskRequestUsesPermissionChoices(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{}, "hello")
	id := e.newSession(t)
	e.c.permit = func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		switch title := *p.ToolCall.Title; {
		case strings.Contains(title, "— formal?"):
			return acpsdk.NewRequestPermissionOutcomeSelected("value:yes")
		case strings.HasPrefix(title, "How should I greet you?"):
			return acpsdk.NewRequestPermissionOutcomeSelected("value:no")
		}
		return acpsdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)
	}
	e.prompt(t, id, "/hello:greet name=Ada")
	e.c.mu.Lock()
	perms := append([]acpsdk.RequestPermissionRequest(nil), e.c.perms...)
	e.c.mu.Unlock()
	if len(perms) != 3 {
		t.Fatalf("%d permission requests, want friendly, formal, then the name", len(perms))
	}
	for i, want := range []string{"How should I greet you? — friendly? (1 of 3)", "How should I greet you? — formal? (2 of 3)"} {
		p := perms[i]
		if *p.ToolCall.Title != want {
			t.Errorf("request %d title %q, want %q", i+1, *p.ToolCall.Title, want)
		}
		if !strings.HasPrefix(string(p.ToolCall.ToolCallId), "ask-hello-") || !strings.HasSuffix(string(p.ToolCall.ToolCallId), "-value-"+strconv.Itoa(i+1)) {
			t.Errorf("toolCallId %q", p.ToolCall.ToolCallId)
		}
		kinds := map[acpsdk.PermissionOptionKind]bool{}
		for _, o := range p.Options {
			kinds[o.Kind] = true
		}
		if len(kinds) != len(p.Options) {
			t.Errorf("request %d offers options of one kind: %+v", i+1, p.Options)
		}
	}
	if got := perms[1].Options[0].Name; got != "Choose formal" {
		t.Errorf("select option %q", got)
	}
	if got := perms[2].Options[0].Name; got != `Use "Ada"` || perms[2].Options[1].Kind != acpsdk.PermissionOptionKindRejectOnce {
		t.Errorf("input options %+v", perms[2].Options)
	}
	if text := messages(e.c.testClient); !strings.Contains(text, "Good day, Ada.") {
		t.Errorf("the answers did not reach the plugin: %q", text)
	}
}

// TestUpdateSinkAskCancelledReturnsNoAnswers: a dismissed question
// cancels the plugin's request: no further question, no answer.
func TestUpdateSinkAskCancelledReturnsNoAnswers(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{}, "hello")
	id := e.newSession(t)
	e.c.permit = func(acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		return acpsdk.NewRequestPermissionOutcomeCancelled()
	}
	e.prompt(t, id, "/hello:greet name=Ada")
	e.c.mu.Lock()
	n := len(e.c.perms)
	e.c.mu.Unlock()
	text := messages(e.c.testClient)
	// The echo model streams the action's message word by word, and
	// hello's session card may land between two words: look for both.
	if n != 1 || strings.Contains(text, "Ada!") || strings.Contains(text, "Ada.") || !strings.Contains(text, "greeting") || !strings.Contains(text, "cancelled") {
		t.Errorf("%d questions; text %q", n, text)
	}
}

// TestElicitationAnswersPluginQuestions: a client that declares
// elicitation.form gets each question as a form-mode elicitation scoped
// to the session (sessionId at the top of the params, as the ACP schema
// wants it): the select as a string enum, the input as free text with
// its default; accept answers, decline cancels.
func TestElicitationAnswersPluginQuestions(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{Elicitation: &acpsdk.ElicitationCapabilities{Form: &acpsdk.ElicitationFormCapabilities{}}}, "hello")
	id := e.newSession(t)
	e.c.elicit = func(p acpsdk.UnstableCreateElicitationRequest) acpsdk.UnstableCreateElicitationResponse {
		prop, _ := p.Form.RequestedSchema.Properties["value"].(map[string]any)
		if _, isSelect := prop["enum"]; isSelect {
			return acpsdk.UnstableCreateElicitationResponse{Accept: &acpsdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"value": "pirate"}}}
		}
		return acpsdk.UnstableCreateElicitationResponse{Accept: &acpsdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"value": "Grace Hopper"}}}
	}
	e.prompt(t, id, "/hello:greet name=Ada")
	if text := messages(e.c.testClient); !strings.Contains(text, "Ahoy, Grace Hopper!") {
		t.Errorf("the free-text answer did not reach the plugin: %q", text)
	}
	var frames []map[string]any
	for _, f := range e.tap.all() {
		if strings.Contains(f, `"method":"elicitation/create"`) {
			var m struct{ Params map[string]any }
			if err := json.Unmarshal([]byte(f), &m); err != nil {
				t.Fatal(err)
			}
			frames = append(frames, m.Params)
		}
	}
	if len(frames) != 2 {
		t.Fatalf("%d elicitations", len(frames))
	}
	wantSchema := []string{
		`{"properties":{"value":{"enum":["friendly","formal","pirate"],"title":"How should I greet you?","type":"string"}},"type":"object"}`,
		`{"properties":{"value":{"default":"Ada","title":"Your name","type":"string"}},"type":"object"}`,
	}
	for i, p := range frames {
		if p["sessionId"] != string(id) || p["mode"] != "form" || p["_meta"] != nil {
			t.Errorf("elicitation %d scope: %v", i, p)
		}
		b, _ := json.Marshal(p["requestedSchema"])
		if string(b) != wantSchema[i] {
			t.Errorf("elicitation %d schema:\n got %s\nwant %s", i, b, wantSchema[i])
		}
	}
	e.c.mu.Lock()
	e.c.elicit = func(acpsdk.UnstableCreateElicitationRequest) acpsdk.UnstableCreateElicitationResponse {
		return acpsdk.UnstableCreateElicitationResponse{Decline: &acpsdk.UnstableCreateElicitationDecline{Action: "decline"}}
	}
	e.c.mu.Unlock()
	e.prompt(t, id, "/hello:greet name=Bo")
	if text := messages(e.c.testClient); strings.Contains(text, "Bo!") || !strings.Contains(text, "greeting cancelled") {
		t.Errorf("a declined elicitation answered: %q", text)
	}
}

func TestElicitAnswerAndSchema(t *testing.T) {
	t.Parallel()
	fields := []editorui.Field{
		{Key: "ok", Label: "Sure?", Kind: extproto.FieldConfirm, Default: json.RawMessage("true")},
		{Key: "tags", Kind: extproto.FieldMultiselect, Options: []string{"a", "b"}, Default: json.RawMessage(`["a"]`), Required: true},
	}
	b, _ := json.Marshal(elicitSchema(fields))
	want := `{"properties":{"ok":{"default":true,"title":"Sure?","type":"boolean"},"tags":{"default":["a"],"items":{"enum":["a","b"],"type":"string"},"title":"tags","type":"array"}},"required":["tags"],"type":"object"}`
	if string(b) != want {
		t.Errorf("schema:\n got %s\nwant %s", b, want)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"action":"accept","content":{"ok":false,"tags":["a","b"]}}`, `{false map[ok:false tags:["a","b"]]}`},
		{`{"action":"decline"}`, `{true map[]}`},
		{`{"action":"cancel"}`, `{true map[]}`},
		{`{"action":"_later","content":{"ok":true}}`, `{true map[]}`},
	} {
		var res acpsdk.UnstableCreateElicitationResponse
		if err := json.Unmarshal([]byte(tc.in), &res); err != nil {
			t.Fatal(err)
		}
		a := elicitAnswer(res)
		got := map[string]string{}
		for k, v := range a.Values {
			got[k] = string(v)
		}
		if s := fmtAnswer(a.Cancelled, got); s != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, s, tc.want)
		}
	}
}

func fmtAnswer(cancelled bool, v map[string]string) string {
	var b strings.Builder
	b.WriteString("{")
	if cancelled {
		b.WriteString("true map[")
	} else {
		b.WriteString("false map[")
	}
	first := true
	for _, k := range []string{"ok", "tags"} {
		if s, ok := v[k]; ok {
			if !first {
				b.WriteString(" ")
			}
			first = false
			b.WriteString(k + ":" + s)
		}
	}
	b.WriteString("]}")
	return b.String()
}

func TestScopeElicitationMovesScope(t *testing.T) {
	t.Parallel()
	frame := []byte(`{"id":3,"jsonrpc":"2.0","method":"elicitation/create","params":{"_meta":{"rx-bridge.scope":{"sessionId":"s1"}},"message":"m","mode":"form","requestedSchema":{"properties":{"n":{"default":12345678901234567,"type":"integer"}},"type":"object"}}}` + "\n")
	want := `{"id":3,"jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m","mode":"form","requestedSchema":{"properties":{"n":{"default":12345678901234567,"type":"integer"}},"type":"object"},"sessionId":"s1"}}` + "\n"
	if got := string(scopeElicitation(frame)); got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	other := []byte(`{"method":"elicitation/create","params":{"message":"m"}}` + "\n")
	if got := scopeElicitation(other); !bytes.Equal(got, other) {
		t.Errorf("a frame without scope changed: %s", got)
	}
}

// sinkServer is a server whose client connection writes to a buffer: the
// frames a client would read from the UI routing.
func sinkServer(t *testing.T, caps acpsdk.ClientCapabilities) (*server, func() []map[string]any) {
	t.Helper()
	var buf lockedBuffer
	s := &server{ctx: t.Context(), out: &frameWriter{w: &buf}, ready: make(chan struct{}), sessions: map[string]*session{"s1": {}}, focus: "s1", shownText: map[string]string{}, caps: caps, log: discardLogger()}
	inR, inW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close() })
	s.conn = acpsdk.NewAgentSideConnection(s, s.out, inR)
	close(s.ready)
	return s, func() []map[string]any {
		var out []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			if line == "" {
				continue
			}
			var m struct {
				Params struct {
					Update map[string]any `json:"update"`
				} `json:"params"`
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			out = append(out, m.Params.Update)
		}
		return out
	}
}

var surfaceCaps = acpsdk.ClientCapabilities{Meta: map[string]any{"reasonix.io": map[string]any{"extensionSurface": map[string]any{"supported": true}}}}

func texts(updates []map[string]any) []string {
	var out []string
	for _, u := range updates {
		if u["sessionUpdate"] == "agent_message_chunk" {
			out = append(out, u["content"].(map[string]any)["text"].(string))
		}
	}
	return out
}

func TestInitializeAdvertisesExtensionSurface(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{})
	b, _ := json.Marshal(e.init.AgentCapabilities.Meta)
	if string(b) != `{"reasonix.io":{"extensionSurface":{"schemaVersion":1,"supported":true}}}` {
		t.Errorf("agentCapabilities._meta = %s", b)
	}
}

func TestClientExtensionSurfaceSupportedParsing(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		`{"_meta":{"reasonix.io":{"extensionSurface":{"supported":true}}}}`:   true,
		`{"_meta":{"reasonix.io":{"extensionSurface":{"supported":"true"}}}}`: false,
		`{"_meta":{"reasonix.io":{"extensionSurface":{"supported":false}}}}`:  false,
		`{"_meta":{"reasonix.io":{"extensionSurface":true}}}`:                 false,
		`{"_meta":{"reasonix.io":true}}`:                                      false,
		`{"_meta":{"extensionSurface":{"supported":true}}}`:                   false,
		`{}`: false,
		`{"_meta":{"reasonix.io":{"extensionSurface":{"supported":true,"x":1}}}}`: true,
	} {
		var caps acpsdk.ClientCapabilities
		if err := json.Unmarshal([]byte(in), &caps); err != nil {
			t.Fatal(err)
		}
		if got := surfaceSupported(caps); got != want {
			t.Errorf("%s: %v, want %v", in, got, want)
		}
	}
}

var helloOrigin = editorui.Origin{Plugin: "hello", SurfaceID: "st", SessionID: "acp", Generation: 2}

func TestUpdateSinkExtensionUnsupportedClientGetsTextOnly(t *testing.T) {
	t.Parallel()
	s, frames := sinkServer(t, acpsdk.ClientCapabilities{})
	u := &clientUI{s: s}
	_ = u.Notify(t.Context(), editorui.Notification{Origin: helloOrigin, Title: "Hi", Body: "there"})
	got := frames()
	if len(got) != 1 || got[0]["sessionUpdate"] != "agent_message_chunk" || texts(got)[0] != "\n\nHi\nthere" {
		t.Errorf("updates %v", got)
	}
}

func TestUpdateSinkExtensionSupportedClientGetsMetaAndText(t *testing.T) {
	t.Parallel()
	s, frames := sinkServer(t, surfaceCaps)
	u := &clientUI{s: s}
	_ = u.Card(t.Context(), editorui.Card{Origin: helloOrigin, Title: "Build", Markdown: "**ok**", Text: "ok", Fields: []editorui.KeyValue{{Key: "tests", Value: "12"}}, Actions: []editorui.CardAction{{ActionID: "greet", Label: "Greet"}}})
	got := frames()
	if len(got) != 2 {
		t.Fatalf("updates %v", got)
	}
	b, _ := json.Marshal(got[0])
	want := `{"_meta":{"reasonix.io":{"extensionSurface":{"card":{"actions":[{"actionId":"greet","label":"Greet"}],"fields":[{"key":"tests","value":"12"}],"markdown":"**ok**","text":"ok","title":"Build"},"generation":2,"kind":"card","pluginId":"hello","sessionId":"s1","surfaceId":"st"}}},"sessionUpdate":"_reasonix.io/extension_surface"}`
	if string(b) != want {
		t.Errorf("surface update:\n got %s\nwant %s", b, want)
	}
	if tx := texts(got); len(tx) != 1 || tx[0] != "\n\nBuild\n**ok**\ntests: 12" {
		t.Errorf("text %q", tx)
	}
}

func TestUpdateSinkExtensionStatusAndSeverityPrefixes(t *testing.T) {
	t.Parallel()
	s, frames := sinkServer(t, acpsdk.ClientCapabilities{})
	u := &clientUI{s: s}
	p := 0.5
	_ = u.Status(t.Context(), editorui.Status{Origin: helloOrigin, Label: "ready"})
	_ = u.Status(t.Context(), editorui.Status{Origin: helloOrigin, Label: "ready", Progress: &p}) // same text: not again
	_ = u.Status(t.Context(), editorui.Status{Origin: helloOrigin, Label: "indexing", Detail: "3 files", Severity: editorui.SeverityWarn})
	_ = u.Notify(t.Context(), editorui.Notification{Origin: helloOrigin, Title: "Broken", Severity: editorui.SeverityError})
	_ = u.ShowMessage(t.Context(), editorui.SeverityInfo, "plain")
	want := []string{"\n\n[hello] ready", "\n\n[warning] [hello] indexing: 3 files", "\n\n[warning] Broken", "\n\nplain"}
	if got := texts(frames()); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("texts\n got %q\nwant %q", got, want)
	}
}

func TestUpdateSinkExtensionFormFlattensToAnnouncement(t *testing.T) {
	t.Parallel()
	s, frames := sinkServer(t, surfaceCaps)
	u := &clientUI{s: s}
	_ = u.ShowForm(t.Context(), editorui.Form{Origin: helloOrigin, Title: "Settings", Message: "Choose a style", Fields: []editorui.Field{{Key: "style", Kind: extproto.FieldSelect, Options: []string{"a"}}}})
	got := frames()
	if len(got) != 2 || got[0]["sessionUpdate"] != "_reasonix.io/extension_surface" {
		t.Fatalf("updates %v", got)
	}
	b, _ := json.Marshal(got[0]["_meta"])
	if !strings.Contains(string(b), `"form":{"fields":[{"key":"style","kind":"select","options":["a"]}],"message":"Choose a style","title":"Settings"}`) {
		t.Errorf("form surface %s", b)
	}
	if tx := texts(got); len(tx) != 1 || tx[0] != "\n\nSettings\nChoose a style" {
		t.Errorf("announcement %q", tx)
	}
}

func TestPermissionMetaOnlyTrustsForegroundStaticBash(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, tc := range []struct {
		name, tool string
		cmd        *agent.Command // as the engine decoded the call
		want       string
	}{
		{"exec form", "run_command", &agent.Command{Argv: []string{"go", "test", "./..."}, Dir: ws}, `{"reasonix.io":{"argv":["go","test","./..."],"commandSchemaVersion":1,"cwd":"WS","tool":"run_command"}}`},
		{"no argv: the engine did not decode it", "run_command", nil, `{"reasonix.io":{"tool":"run_command"}}`},
		{"no argv: a secret the display redacts", "run_command", &agent.Command{Argv: []string{"curl", "-H", "Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123456789"}, Dir: ws}, `{"reasonix.io":{"tool":"run_command"}}`},
		{"other tool", "read_file", nil, `{"reasonix.io":{"tool":"read_file"}}`},
	} {
		m := permissionMeta(agent.PermissionRequest{ToolCall: agent.ToolCall{Name: tc.tool}, Command: tc.cmd})
		b, _ := json.Marshal(m)
		if got := strings.ReplaceAll(string(b), ws, "WS"); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestDynamicBashApprovalOptionsUseExactSessionLiteral: "allow for this
// session" of a command names the exact command (the engine's label) and
// the engine allows only it: the same command again runs unasked,
// another one is asked about. The _meta argv and cwd are the engine's
// decoded command.
func TestDynamicBashApprovalOptionsUseExactSessionLiteral(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{})
	id := e.newSession(t)
	var labels []string
	var metas []string
	ws, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	e.c.permit = func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		b, _ := json.Marshal(p.ToolCall.Meta)
		metas = append(metas, strings.ReplaceAll(string(b), ws, "WS"))
		for _, o := range p.Options {
			if o.Kind == acpsdk.PermissionOptionKindAllowAlways {
				labels = append(labels, o.Name)
				return acpsdk.NewRequestPermissionOutcomeSelected(o.OptionId)
			}
		}
		return acpsdk.NewRequestPermissionOutcomeSelected(optAllowOnce)
	}
	e.prompt(t, id, commandCall("echo", "a b"))
	e.prompt(t, id, commandCall("echo", "a b"))
	e.prompt(t, id, commandCall("echo", "a", "b"))
	if want := []string{"Allow `echo 'a b'` in the workspace root for this session", "Allow `echo a b` in the workspace root for this session"}; strings.Join(labels, "|") != strings.Join(want, "|") {
		t.Errorf("asked with %q, want %q", labels, want)
	}
	if len(metas) != 2 || metas[0] != `{"reasonix.io":{"argv":["echo","a b"],"commandSchemaVersion":1,"cwd":"WS","tool":"run_command"}}` {
		t.Errorf("_meta %q", metas)
	}
	if r := toolResults(e.c.testClient); len(r) != 3 {
		t.Errorf("results %q", r)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
