package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// answer picks the "pirate" style and the name "Ada".
func answer(p *extproto.UIRequestParams) extproto.UIRequestResult {
	v := `"Ada"`
	if p.Kind == extproto.RequestSelect {
		v = `"pirate"`
	}
	return extproto.UIRequestResult{Values: map[string]json.RawMessage{extproto.SingleQuestionKey: json.RawMessage(v)}}
}

func TestRewriteHello(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, newPlugin(), sdktest.Options{})
	for in, want := range map[string]string{
		"/hello":          "Please greet me warmly, in one sentence.",
		"  /hello  Ada  ": "Please greet Ada warmly, in one sentence.",
		"/helloworld":     "",
		"hello /hello":    "",
		"what is up":      "",
	} {
		res, err := h.Intercept(extproto.InputReceive, extproto.InputReceivePayload{Text: in})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if want == "" {
			if res.Decision != extproto.DecisionContinue {
				t.Errorf("%q: %+v, want continue", in, res)
			}
			continue
		}
		var got extproto.InputReceivePayload
		if res.Decision != extproto.DecisionReplace || json.Unmarshal(res.Replacement, &got) != nil || got.Text != want {
			t.Errorf("%q: %+v (%s), want replace with %q", in, res, res.Replacement, want)
		}
	}
}

func TestGreet(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, newPlugin(), sdktest.Options{Answer: answer})
	res, err := h.Action("greet", map[string]string{"name": "Grace"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (extproto.UIActionResult{Accepted: true, Message: "Ahoy, Ada!"}); *res != want {
		t.Errorf("greet answered %+v, want %+v", *res, want)
	}
	reqs := h.Requests()
	if len(reqs) != 2 || reqs[0].Kind != extproto.RequestSelect || reqs[1].Kind != extproto.RequestInput {
		t.Fatalf("prompts %+v, want a select then an input", reqs)
	}
	if got := string(reqs[0].Payload); got != `{"fields":[{"key":"value","kind":"select","label":"How should I greet you?","options":["friendly","formal","pirate"]}],"message":"How should I greet you?"}` {
		t.Errorf("select prompt %s", got)
	}
	if got := string(reqs[1].Payload); got != `{"fields":[{"default":"Grace","key":"value","kind":"input","label":"Your name"}],"message":"Your name"}` {
		t.Errorf("input prompt %s", got)
	}
	pub := h.Published()
	if len(pub) != 1 || pub[0].Kind != extproto.SurfaceNotification || pub[0].SurfaceID != greetingSurface ||
		string(pub[0].Payload) != `{"body":"Greeted by the hello example plugin.","severity":"info","title":"Ahoy, Ada!"}` {
		t.Errorf("published %+v", pub)
	}
}

func TestGreetDismissed(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, newPlugin(), sdktest.Options{}) // every prompt dismissed
	res, err := h.Action("greet", nil)
	if err != nil || *res != (extproto.UIActionResult{Accepted: false, Message: "greeting cancelled"}) {
		t.Fatalf("greet: %+v, %v", res, err)
	}
	if pub := h.Published(); len(pub) != 0 {
		t.Errorf("published %+v after a dismissal", pub)
	}
}

func TestStatusAndCardOnSessionStart(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, newPlugin(), sdktest.Options{})
	// The point is also answered as an intercept: continue, it only observes.
	if res, err := h.Intercept(extproto.SessionStart, extproto.SessionStartPayload{Phase: extproto.PhaseStart}); err != nil || res.Decision != extproto.DecisionContinue {
		t.Fatalf("session.start intercept: %+v, %v", res, err)
	}
	if err := h.Event(extproto.SessionStart, extproto.SessionStartPayload{Phase: extproto.PhaseStart, SessionPath: "/s/1.json"}); err != nil {
		t.Fatal(err)
	}
	var pub []extproto.UIPublishParams
	for end := time.Now().Add(sdktest.Deadline); len(pub) < 2 && time.Now().Before(end); time.Sleep(time.Millisecond) {
		pub = h.Published()
	}
	want := []extproto.UIPublishParams{{SurfaceID: statusSurface, SessionID: "sess-1", Generation: 7, Kind: extproto.SurfaceStatus,
		Payload: json.RawMessage(`{"detail":"type /hello \u003cname\u003e, or run /hello:greet (session /s/1.json)","label":"hello: ready","severity":"info"}`)},
		{SurfaceID: cardSurface, SessionID: "sess-1", Generation: 7, Kind: extproto.SurfaceCard,
			Payload: json.RawMessage(`{"actions":[{"actionId":"greet","label":"Greet me"}],"fields":[{"key":"styles","value":"friendly, formal, pirate"}],"markdown":"Type ` + "`/hello Ada`" + ` in a chat, or use the **Greet me** action.","title":"Hello, plugin"}`)}}
	if !reflect.DeepEqual(pub, want) {
		t.Errorf("published\n%+v\nwant\n%+v", pub, want)
	}
}

func TestManifest(t *testing.T) {
	t.Parallel()
	m, err := manifest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sdktest.Start(t, newPlugin(), sdktest.Options{NoHandshake: true}).Initialize()
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != res.Name || m.Version != res.Version {
		t.Errorf("manifest %s %s, handshake %s %s", m.Name, m.Version, res.Name, res.Version)
	}
	// The handshake may only claim what the manifest declares.
	for _, s := range res.Subscriptions {
		if !slices.Contains(m.Runtime.Intercepts, extproto.HookPoint(s)) {
			t.Errorf("subscription %s is not in runtime.intercepts %v", s, m.Runtime.Intercepts)
		}
	}
	if len(res.UIActions) > 0 && !slices.Contains(m.Runtime.Capabilities, extproto.CapUI) {
		t.Error("UI actions without the ui capability")
	}
}

// TestBinary builds the sidecar and drives it over its real stdin and
// stdout as the host would launch it.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := sdktest.Build(t, ".")
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "REASONIX_PLUGIN_ROOT="+root, "REASONIX_PLUGIN_NAME=hello", "REASONIX_PLUGIN_VERSION=0.1.0")
	h, stderr := sdktest.StartCmd(t, cmd, sdktest.Options{NoHandshake: true, Answer: answer,
		Manifest: extproto.ManifestExpectation{Intercepts: []string{"input.receive", "session.start"}, Capabilities: []string{"interceptors", "ui"}}})
	res, err := h.Initialize()
	if err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, stderr)
	}
	want := &extproto.InitializeResult{ProtocolVersion: "1", Name: "hello", Version: "0.1.0",
		Subscriptions: []string{"input.receive", "session.start"}, UIActions: []extproto.UIActionDecl{{ActionID: "greet", Label: "Greet me"}}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("handshake %+v, want %+v", res, want)
	}
	h.Initialized()
	if r, err := h.Action("greet", nil); err != nil || r.Message != "Ahoy, Ada!" {
		t.Errorf("greet: %+v, %v", r, err)
	}
	if r, err := h.Shutdown(time.Second); err != nil || !r.Accepted {
		t.Fatalf("shutdown: %+v, %v; stderr: %s", r, err, stderr)
	}
}
