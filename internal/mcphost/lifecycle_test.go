package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A server that crashes during a call: the call fails naming the server
// and why, the server's tools disappear with a notice, nothing hangs, and
// Connect brings it back.
func TestServerCrashMidCallRemovesItsTools(t *testing.T) {
	t.Parallel()
	h, n, procs := newHost(t, []Server{goServer(t, "flaky", "ok")}, Options{})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "flaky"); err != nil {
		t.Fatal(err)
	}
	_, err := h.Call(ctx, "mcp__flaky__crash", json.RawMessage(`{}`))
	if err == nil || !strings.Contains(err.Error(), `mcp server "flaky" stopped`) || !strings.Contains(err.Error(), "the server fell over") {
		t.Fatalf("call error = %v; want it to name the server and show its stderr", err)
	}
	if got := h.Tools(); len(got) != 0 {
		t.Errorf("tools after the crash: %v", toolNames(got))
	}
	x := n.waitFor(t, "its tools are no longer available")
	if !x.Error || !x.ToolsChanged || x.Server != "flaky" {
		t.Errorf("notice = %+v", x)
	}
	if st := h.Status()[0]; st.State != StateFailed || !strings.Contains(st.Err, "exit status 3") {
		t.Errorf("status = %+v", st)
	}
	if _, err := h.Call(ctx, "mcp__flaky__echo", json.RawMessage(`{}`)); !errors.Is(err, ErrUnknown) {
		t.Errorf("a call to a vanished tool: %v", err)
	}
	if c, err := h.Connect(ctx, "flaky"); err != nil || c == 0 {
		t.Fatalf("reconnect: %d, %v", c, err)
	}
	if r, err := h.Call(ctx, "mcp__flaky__echo", json.RawMessage(`{"message":"back"}`)); err != nil || r.Text != "echo: back" {
		t.Errorf("after reconnect: %+v, %v", r, err)
	}
	h.Close()
	procs.assertReaped(t)
}

// A server that exits before the handshake is reported by name with its
// (redacted) stderr; its stub tool disappears.
func TestServerFailingToStartIsReportedByName(t *testing.T) {
	t.Parallel()
	h, n, _ := newHost(t, []Server{goServer(t, "broken", "failstart")}, Options{})
	x := n.waitFor(t, "failed to start")
	if !strings.Contains(x.Text, `mcp server "broken" failed to start`) || !strings.Contains(x.Text, "cannot open the database") || !x.Error {
		t.Errorf("notice = %+v", x)
	}
	if strings.Contains(x.Text, "sk-abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Errorf("the notice shows a credential: %s", x.Text)
	}
	if got := h.Tools(); len(got) != 0 {
		t.Errorf("tools: %v", toolNames(got))
	}
	if st := h.Status()[0]; st.State != StateFailed || st.Err != x.Text {
		t.Errorf("status = %+v", st)
	}
}

// A server that never answers initialize fails at the startup timeout and
// is killed, though it ignores stdin EOF.
func TestServerStartupTimeout(t *testing.T) {
	t.Parallel()
	h, n, procs := newHost(t, []Server{goServer(t, "mute", "silent")}, Options{StartupTimeout: 300 * time.Millisecond})
	x := n.waitFor(t, "failed to start")
	if !strings.Contains(x.Text, `mcp server "mute" failed to start: no answer within 300ms`) {
		t.Errorf("notice = %q", x.Text)
	}
	procs.assertReaped(t)
	_, err := h.Connect(ctxT(t), "mute")
	if err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("Connect = %v", err)
	}
}

// A call that outlives the call timeout fails naming the server and the
// tool; the server stays usable.
func TestCallTimeout(t *testing.T) {
	t.Parallel()
	srv := goServer(t, "slow", "ok")
	srv.ToolTimeouts = map[string]time.Duration{"hang": 200 * time.Millisecond}
	h, _, _ := newHost(t, []Server{srv}, Options{})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "slow"); err != nil {
		t.Fatal(err)
	}
	_, err := h.Call(ctx, "mcp__slow__hang", json.RawMessage(`{}`))
	if err == nil || err.Error() != `mcp server "slow": hang timed out after 200ms` {
		t.Fatalf("err = %v", err)
	}
	if r, err := h.Call(ctx, "mcp__slow__echo", json.RawMessage(`{"message":"still here"}`)); err != nil || r.Text != "echo: still here" {
		t.Errorf("after the timeout: %+v, %v", r, err)
	}
}

// Close of a server that ignores stdin EOF (and has a call in flight)
// kills it after the grace; nothing is left running.
func TestCloseKillsAWedgedServer(t *testing.T) {
	t.Parallel()
	h, _, procs := newHost(t, []Server{goServer(t, "wedged", "wedged")}, Options{})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "wedged"); err != nil {
		t.Fatal(err)
	}
	pids := processTree(procs.all()[0].Pid())
	called := make(chan error, 1)
	go func() {
		_, err := h.Call(ctx, "mcp__wedged__hang", json.RawMessage(`{}`))
		called <- err
	}()
	h.Close()
	procs.assertReaped(t)
	assertGone(t, pids)
	if err := <-called; err == nil {
		t.Error("the in-flight call succeeded after Close")
	}
	if _, err := h.Call(ctx, "mcp__wedged__echo", nil); err == nil {
		t.Error("a call after Close succeeded")
	}
}

// Lazy start: with a valid schema cache the server stays process-idle,
// its cached tools are shown (pinned), and the first call starts it once.
// Without one (the first session) one background discovery runs and only
// the connect stub is shown meanwhile; it writes the cache.
func TestLazyStartFromSchemaCache(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	starts := filepath.Join(t.TempDir(), "starts")
	srv := goServer(t, "lazy", "ok")
	srv.Env["MCPHOST_TEST_STARTS"] = starts

	// First session: cache miss.
	h1, n1, _ := newHost(t, []Server{srv}, Options{CacheDir: cache})
	first := toolNames(h1.Tools())
	if !slices.Equal(first, []string{"mcp__lazy__connect"}) && !slices.Contains(first, "mcp__lazy__echo") {
		t.Fatalf("first session tools = %v; want the connect stub until discovery ends", first)
	}
	n1.waitFor(t, "connected lazy")
	live := toolNames(h1.Tools())
	if !slices.Contains(live, "mcp__lazy__echo") || slices.Contains(live, "mcp__lazy__connect") {
		t.Fatalf("after discovery: %v", live)
	}
	h1.Close()
	if got := countLines(t, starts); got != 1 {
		t.Fatalf("first session started the server %d times", got)
	}

	// Second session: cache hit, no process until the first call.
	h2, _, _ := newHost(t, []Server{srv}, Options{CacheDir: cache})
	tools := h2.Tools()
	if !slices.Equal(toolNames(tools), live) {
		t.Fatalf("cached tools %v, want %v", toolNames(tools), live)
	}
	for _, tl := range tools {
		if !tl.Placeholder {
			t.Errorf("%s is not a placeholder", tl.Name)
		}
	}
	if st := h2.Status()[0]; st.State != StateIdle || st.Tools != len(live) {
		t.Errorf("status = %+v", st)
	}
	if _, err := os.Stat(starts); countLines(t, starts) != 1 || err != nil {
		t.Fatalf("the idle server was started")
	}
	if p := h2.Prompts(); len(p) != 1 || p[0].Name != "mcp__lazy__greet" {
		t.Errorf("cached prompts = %+v", p)
	}
	r, err := h2.Call(ctxT(t), "mcp__lazy__echo", json.RawMessage(`{"message":"wake"}`))
	if err != nil || r.Text != "echo: wake" {
		t.Fatalf("first call = %+v, %v", r, err)
	}
	if !slices.Equal(toolNames(h2.Tools()), live) {
		t.Errorf("tools changed after the start: %v", toolNames(h2.Tools()))
	}
	if got := countLines(t, starts); got != 2 {
		t.Errorf("server started %d times in all, want 2", got)
	}

	// A changed definition invalidates the cache.
	changed := srv
	changed.Args = []string{"-x"}
	h3, _, _ := newHost(t, []Server{changed}, Options{CacheDir: cache})
	if st := h3.Status()[0]; st.State == StateIdle {
		t.Errorf("a changed definition used the old cache: %+v", st)
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// The connect stub waits for discovery and lists the tools.
func TestConnectStubListsTools(t *testing.T) {
	t.Parallel()
	h, _, _ := newHost(t, []Server{goServer(t, "stubbed", "ok")}, Options{})
	r, err := h.Call(ctxT(t), "mcp__stubbed__connect", nil)
	if errors.Is(err, ErrUnknown) {
		t.Skip("discovery finished before the stub was called")
	}
	if err != nil || !strings.HasPrefix(r.Text, "connected stubbed — 6 tools: ") || !strings.Contains(r.Text, "mcp__stubbed__echo") {
		t.Errorf("stub call = %+v, %v", r, err)
	}
}

// auto_start false: nothing runs and no tool shows until Connect.
func TestAutoStartFalseWaitsForConnect(t *testing.T) {
	t.Parallel()
	srv := goServer(t, "manual", "ok")
	srv.AutoStart = false
	h, _, procs := newHost(t, []Server{srv}, Options{})
	if len(h.Tools()) != 0 || h.Status()[0].State != StateDisabled || len(procs.all()) != 0 {
		t.Fatalf("a disabled server runs: %v %+v", toolNames(h.Tools()), h.Status())
	}
	n, err := h.Connect(ctxT(t), "manual")
	if err != nil || n != 6 || len(h.Tools()) != 6 {
		t.Fatalf("Connect = %d, %v; tools %v", n, err, toolNames(h.Tools()))
	}
}

// Tool results, errors and odd names.
func TestCallResults(t *testing.T) {
	t.Parallel()
	h, _, _ := newHost(t, []Server{goServer(t, "t", "ok")}, Options{MaxResultBytes: 100})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	r, err := h.Call(ctx, "mcp__t__big", json.RawMessage(`{"n":1000}`))
	if err != nil || !strings.HasPrefix(r.Text, "<xxxx") || !strings.HasSuffix(r.Text, "xxx>") || !strings.Contains(r.Text, "[... 902 bytes of output left out ...]") {
		t.Errorf("bounded result = %q, %v", r.Text, err)
	}
	if r, err := h.Call(ctx, "mcp__t__big", json.RawMessage(`{"n":10}`)); err != nil || r.Text != "<xxxxxxxxxx>" {
		t.Errorf("small result = %q, %v", r.Text, err)
	}
	if r, err := h.Call(ctx, "mcp__t__fail", json.RawMessage(`{}`)); err != nil || !r.IsError || r.Text != "it went wrong" {
		t.Errorf("tool error = %+v, %v", r, err)
	}
	odd := ToolName("t", "odd name!")
	if r, err := h.Call(ctx, odd, json.RawMessage(`{}`)); err != nil || r.Text != "odd" {
		t.Errorf("%s = %+v, %v", odd, r, err)
	}
	if _, err := h.Call(ctx, "mcp__t__echo", json.RawMessage(`[1]`)); err == nil || !strings.Contains(err.Error(), "not a JSON object") {
		t.Errorf("array arguments: %v", err)
	}
	if _, err := h.Call(ctx, "mcp__t__nope", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown tool: %v", err)
	}
	// Truncate hands the cutting to the caller.
	h2, _, _ := newHost(t, []Server{goServer(t, "u", "ok")}, Options{MaxResultBytes: 10, Truncate: func(s string, n int) string { return s[:n] + "|cut" }})
	if _, err := h2.Connect(ctx, "u"); err != nil {
		t.Fatal(err)
	}
	if r, err := h2.Call(ctx, "mcp__u__big", json.RawMessage(`{"n":50}`)); err != nil || r.Text != "<xxxxxxxxx|cut" {
		t.Errorf("custom truncation = %q, %v", r.Text, err)
	}
	got, err := h2.GetPrompt(ctx, "/mcp__u__greet", []string{"Ada", "warmly", "today"})
	if err != nil || got != "Greet Ada (warmly today)." {
		t.Errorf("greet = %q, %v", got, err)
	}
	if _, err := h2.GetPrompt(ctx, "/mcp__u__nope", nil); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown prompt: %v", err)
	}
}

// A definition that can never start is reported, not run.
func TestInvalidDefinitionsAreReported(t *testing.T) {
	t.Parallel()
	cases := []struct {
		srv  Server
		want string
	}{
		{Server{Name: "a", AutoStart: true}, `MCP server "a" command is required`},
		{Server{Name: "b", Type: "sse", AutoStart: true}, `MCP server "b" url is required`},
		{Server{Name: "c", Type: "websocket", URL: "ws://x", AutoStart: true}, `MCP server "c" uses unsupported transport "websocket"`},
		{Server{Name: "d", Command: "rx-bridge-no-such-command-xyz", AutoStart: true}, `stdio plugin "d": command "rx-bridge-no-such-command-xyz" not found on PATH`},
		{Server{Name: "e", URL: "ftp://host/x", AutoStart: true}, `invalid url "ftp://host/x"`},
	}
	for _, c := range cases {
		h, n, _ := newHost(t, []Server{c.srv}, Options{})
		x := n.waitFor(t, c.srv.Name)
		if !strings.Contains(x.Text, c.want) || !x.Error {
			t.Errorf("%s: notice %q, want %q", c.srv.Name, x.Text, c.want)
		}
		if st := h.Status()[0]; st.State != StateFailed || !strings.Contains(st.Err, c.want) {
			t.Errorf("%s: status %+v", c.srv.Name, st)
		}
	}
}

// Unadvertised aliases resolve to the one tool they name; an ambiguous
// one lists the candidates.
func TestResolveAliases(t *testing.T) {
	t.Parallel()
	a := goServer(t, "alpha", "ok")
	a.Source, a.Owner = SourcePackage, "pkg"
	h, _, _ := newHost(t, []Server{a, goServer(t, "beta", "ok")}, Options{})
	ctx := ctxT(t)
	for _, s := range []string{"alpha", "beta"} {
		if _, err := h.Connect(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for ref, want := range map[string]string{
		"mcp__alpha__echo":            "mcp__alpha__echo",
		"alpha/echo":                  "mcp__alpha__echo",
		"mcp-tool:beta/echo":          "mcp__beta__echo",
		"mcp__plugin_pkg_alpha__echo": "mcp__alpha__echo",
		"beta/odd name!":              ToolName("beta", "odd name!"),
		"beta/" + Norm("odd name!"):   ToolName("beta", "odd name!"),
	} {
		if got, err := h.Resolve(ref); err != nil || got != want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := h.Resolve("echo"); err == nil || err.Error() != `ambiguous MCP tool reference "echo"; use one of: mcp__alpha__echo, mcp__beta__echo` {
		t.Errorf("ambiguous: %v", err)
	}
	if _, err := h.Resolve("gamma/echo"); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown: %v", err)
	}
}

// TestWaitStarting: a session can wait for the servers that are starting
// on a cold schema cache, so its first prompt sees their tools; a server
// that fails ends the wait too, and one that does not answer in time is
// named as still starting when the wait's bound ends (issue 27 item 12).
func TestWaitStarting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode string
		// expired ends the wait's bound at once.
		expired bool
		still   []string
		tools   bool
	}{
		{"ready", "ok", false, nil, true},
		{"failed", "failstart", false, nil, false},
		{"still starting", "silent", true, []string{"srv"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, _, _ := newHost(t, []Server{goServer(t, "srv", tc.mode)}, Options{})
			if tc.mode == "silent" {
				if got := h.Starting(); !slices.Equal(got, []string{"srv"}) {
					t.Errorf("Starting = %v", got)
				}
			}
			ctx := ctxT(t)
			if tc.expired {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			if got := h.WaitStarting(ctx); !slices.Equal(got, tc.still) {
				t.Errorf("WaitStarting = %v, want %v", got, tc.still)
			}
			var real []string
			for _, tool := range h.Tools() {
				if !tool.Placeholder {
					real = append(real, tool.Name)
				}
			}
			if tc.tools != (len(real) > 0) {
				t.Errorf("after the wait the tools are %v", toolNames(h.Tools()))
			}
			if !tc.expired && len(h.Starting()) != 0 {
				t.Errorf("Starting after the wait = %v", h.Starting())
			}
		})
	}
}
