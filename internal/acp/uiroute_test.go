package acp

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// routerSidecarEnv set makes this test binary the "router" plugin's
// sidecar (runRouterSidecar) instead of running the tests; its value is a
// folder the sidecar marks its progress in.
const routerSidecarEnv = "ACP_TEST_ROUTER_SIDECAR"

// runRouterSidecar is a plugin whose UI traffic belongs to a session: as
// the session_policy owner it rules session.start, publishing a status
// and a card naming the session's transcript, then marks the folder
// (published-<n> for the n-th start) and keeps the first start waiting
// until a second one is ruled, so two sessions are opening at once. At
// input.receive a prompt "ask …" asks two questions naming the prompt.
func runRouterSidecar() {
	dir := os.Getenv(routerSidecarEnv)
	p := &sdk.Plugin{Name: "router", Version: "1.0.0", Replaces: []string{string(extproto.SlotSessionPolicy)}}
	var mu sync.Mutex
	starts := 0
	second := make(chan struct{})
	sdk.Intercept(p, func(ctx context.Context, in *extproto.SessionStartPayload) (sdk.Decision, error) {
		mu.Lock()
		starts++
		n := starts
		mu.Unlock()
		h := sdk.HostFrom(ctx)
		if _, err := h.Publish(ctx, "router-status", extproto.UIStatusPayload{Label: "started", Detail: in.SessionPath}); err != nil {
			return sdk.Decision{}, err
		}
		if _, err := h.Publish(ctx, "router-card", extproto.UICardPayload{Title: "router", Text: in.SessionPath}); err != nil {
			return sdk.Decision{}, err
		}
		if err := os.WriteFile(filepath.Join(dir, "published-"+strconv.Itoa(n)), nil, 0o600); err != nil {
			return sdk.Decision{}, err
		}
		switch n {
		case 1:
			select {
			case <-second:
			case <-ctx.Done():
			}
		case 2:
			close(second)
		}
		return sdk.Continue(), nil
	})
	sdk.Intercept(p, func(ctx context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		if !strings.HasPrefix(in.Text, "ask ") {
			return sdk.Continue(), nil
		}
		h := sdk.HostFrom(ctx)
		if _, err := h.Confirm(ctx, "first: "+in.Text); err == nil {
			_, _ = h.Confirm(ctx, "second: "+in.Text)
		}
		return sdk.Continue(), nil
	})
	if err := sdk.Serve(context.Background(), p, sdk.Options{}); err != nil {
		os.Exit(1)
	}
}

// installRouter installs the router plugin (this test binary) into home.
func installRouter(t *testing.T, home, dir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src := t.TempDir()
	m := map[string]any{
		"apiVersion": "reasonix.io/plugin/v1", "name": "router", "version": "1.0.0",
		"runtime": map[string]any{
			"command": exe, "env": map[string]string{routerSidecarEnv: dir}, "timeoutMillis": 60000,
			"intercepts": []string{"session.start", "input.receive"}, "replaces": []string{"session_policy"},
			"capabilities": []string{"interceptors", "strategies", "ui"},
		},
	}
	b, _ := json.Marshal(m)
	if err := os.WriteFile(filepath.Join(src, "reasonix-plugin.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	store := &manifest.Store{Dir: home}
	plan, err := store.Plan(manifest.InstallOptions{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Install(plan); err != nil {
		t.Fatal(err)
	}
}

// sessionFrame is one session/update the client read: its session and
// update.
type sessionFrame struct {
	session string
	update  map[string]any
}

func sessionFrames(e *ioEnv) []sessionFrame {
	var out []sessionFrame
	for _, f := range e.tap.all() {
		var m struct {
			Method string
			Params struct {
				SessionID string         `json:"sessionId"`
				Update    map[string]any `json:"update"`
			}
		}
		if json.Unmarshal([]byte(f), &m) != nil || m.Method != "session/update" {
			continue
		}
		out = append(out, sessionFrame{m.Params.SessionID, m.Params.Update})
	}
	return out
}

// surfaceOf is the extension surface of an update (nil for another
// update).
func surfaceOf(u map[string]any) map[string]any {
	if u["sessionUpdate"] != updateExtensionSurface {
		return nil
	}
	meta, _ := u["_meta"].(map[string]any)
	ns, _ := meta[metaNamespace].(map[string]any)
	s, _ := ns["extensionSurface"].(map[string]any)
	return s
}

// TestPluginUIFollowsTheSessionThatCausedIt (issue 26 defect 6): with two
// ACP sessions opening at once (A's session.start still running while B's
// runs), each session.start's status and card reach the session they
// were published for, tagged with its id, never the other's; and a
// plugin's second question at a hook of A's turn goes to A although B
// prompted meanwhile.
func TestPluginUIFollowsTheSessionThatCausedIt(t *testing.T) {
	t.Parallel()
	e := &ioEnv{home: t.TempDir(), ws: t.TempDir(), c: newIOClient(), tap: &tap{}}
	marks := t.TempDir()
	examplestest.Install(t, e.home, "echo-provider")
	installRouter(t, e.home, marks)
	e.serve(t, surfaceCaps)

	ids := make([]acpsdk.SessionId, 2)
	var wg sync.WaitGroup
	wg.Go(func() { ids[0] = e.newSession(t) })
	// B opens once A's session.start published (and waits for B's).
	waitFor(t, "A's session.start surfaces", func() bool {
		_, err := os.Stat(filepath.Join(marks, "published-1"))
		return err == nil
	})
	ids[1] = e.newSession(t)
	wg.Wait()
	a, b := string(ids[0]), string(ids[1])
	if a == "" || b == "" {
		t.Fatal("a session did not open")
	}
	waitFor(t, "both sessions' status and card", func() bool {
		n := 0
		for _, f := range sessionFrames(e) {
			if surfaceOf(f.update) != nil {
				n++
			}
		}
		return n >= 4
	})
	for _, f := range sessionFrames(e) {
		s := surfaceOf(f.update)
		if s == nil {
			continue
		}
		var path string
		switch s["kind"] {
		case "status":
			path, _ = s["status"].(map[string]any)["detail"].(string)
		case "card":
			path, _ = s["card"].(map[string]any)["text"].(string)
		}
		if !strings.Contains(path, f.session) || s["sessionId"] != f.session {
			t.Errorf("%s of the session at %s went to session %s (tagged %v)", s["kind"], path, f.session, s["sessionId"])
		}
	}

	// A asks twice at input.receive; between the two questions B prompts
	// and its turn ends.
	var mu sync.Mutex
	var asked []string // "<session> <question>"
	e.c.mu.Lock()
	e.c.permit = func(p acpsdk.RequestPermissionRequest) acpsdk.RequestPermissionOutcome {
		mu.Lock()
		asked = append(asked, string(p.SessionId)+" "+*p.ToolCall.Title)
		first := len(asked) == 1
		mu.Unlock()
		if first {
			e.prompt(t, ids[1], "hello from B")
		}
		return acpsdk.NewRequestPermissionOutcomeSelected(p.Options[0].OptionId)
	}
	e.c.mu.Unlock()
	e.prompt(t, ids[0], "ask A")
	mu.Lock()
	defer mu.Unlock()
	want := []string{a + " first: ask A", a + " second: ask A"}
	if strings.Join(asked, "|") != strings.Join(want, "|") {
		t.Errorf("questions\n got %q\nwant %q\n(B is %s)", asked, want, b)
	}
}

// TestSurfacesAndQuestionsGoWhereTheEngineSays: the client UI delivers to
// the session the engine named (Origin.Session) while it is open;
// session-less surfaces, and those of a session no longer open, go to
// every open session; session-less questions to the most recently active
// one, and a question of a session no longer open nowhere. Surfaces
// published while a session opens are held until it has.
func TestSurfacesAndQuestionsGoWhereTheEngineSays(t *testing.T) {
	t.Parallel()
	var buf lockedBuffer
	s := &server{ctx: t.Context(), out: &frameWriter{w: &buf}, ready: make(chan struct{}), sessions: map[string]*session{"s1": {}, "s2": {}}, focus: "s1", shownText: map[string]string{}, log: discardLogger()}
	inR, inW := io.Pipe()
	t.Cleanup(func() { _ = inW.Close() })
	s.conn = acpsdk.NewAgentSideConnection(s, s.out, inR)
	close(s.ready)
	u := &clientUI{s: s}
	status := func(session, label string) {
		_ = u.Status(t.Context(), editorui.Status{Origin: editorui.Origin{Plugin: "p", SurfaceID: label, Session: session}, Label: label})
	}
	shown := func() string {
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var m struct {
				Params struct {
					SessionID string `json:"sessionId"`
					Update    struct {
						Content struct{ Text string }
					}
				}
			}
			if line != "" && json.Unmarshal([]byte(line), &m) == nil {
				out = append(out, m.Params.SessionID+":"+strings.TrimSpace(m.Params.Update.Content.Text))
			}
		}
		return strings.Join(out, " ")
	}
	status("", "idle")
	status("s2", "busy")
	status("gone", "lost")
	if got, want := shown(), "s1:[p] idle s2:[p] idle s2:[p] busy s1:[p] lost s2:[p] lost"; got != want {
		t.Errorf("shown\n got %s\nwant %s", got, want)
	}
	s.beginOpen()
	status("", "held")
	if got := shown(); strings.Contains(got, "held") {
		t.Errorf("shown while a session opens: %s", got)
	}
	s.mu.Lock()
	s.sessions["s3"] = &session{}
	s.mu.Unlock()
	s.endOpen("s3")
	if got := shown(); !strings.HasSuffix(got, "s1:[p] held s2:[p] held s3:[p] held") {
		t.Errorf("held surface not shown in every session once opened: %s", got)
	}
	for session, want := range map[string]string{"": "s3", "s2": "s2", "gone": ""} {
		if got := s.askIn(editorui.Origin{Session: session}); got != want {
			t.Errorf("a question of session %q is asked in %q, want %q", session, got, want)
		}
	}
}
