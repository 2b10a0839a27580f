package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// installKit installs a Claude-format package "kit" with a command
// (review, hint "path") through the real install path.
func installKit(t *testing.T, home string) {
	t.Helper()
	src := t.TempDir()
	for name, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name":"kit","version":"1.0.0","description":"A Claude Code plugin"}`,
		"commands/review.md":         "---\ndescription: Review a file\nargument-hint: path\n---\nReview $ARGUMENTS",
	} {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
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

// commandsSeen is every available_commands_update the client got, in
// order, as name lists.
func commandsSeen(c *testClient) [][]acpsdk.AvailableCommand {
	var out [][]acpsdk.AvailableCommand
	for _, u := range c.seen() {
		if a := u.AvailableCommandsUpdate; a != nil {
			out = append(out, a.AvailableCommands)
		}
	}
	return out
}

func names(cmds []acpsdk.AvailableCommand) string {
	var out []string
	for _, c := range cmds {
		out = append(out, c.Name)
	}
	return strings.Join(out, " ")
}

// waitFor polls cond until it holds or the test's deadline nears.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for ctx := ctxT(t); !cond(); {
		select {
		case <-ctx.Done():
			t.Fatalf("never: %s", what)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestServeAdvertisesAndExpandsCustomCommands: a package's command is
// advertised qualified (kit:review, hint "path"; not its hidden short
// alias) and a prompt naming it runs its body.
func TestServeAdvertisesAndExpandsCustomCommands(t *testing.T) {
	t.Parallel()
	e := &ioEnv{home: t.TempDir(), ws: t.TempDir(), c: newIOClient(), tap: &tap{}}
	installKit(t, e.home)
	startWith(t, e, "echo-provider")
	id := e.newSession(t)
	waitFor(t, "available_commands_update", func() bool { return len(commandsSeen(e.c.testClient)) > 0 })
	cmds := commandsSeen(e.c.testClient)[0]
	var review *acpsdk.AvailableCommand
	for i, c := range cmds {
		if c.Name == "review" {
			t.Errorf("the hidden alias is advertised: %s", names(cmds))
		}
		if c.Name == "kit:review" {
			review = &cmds[i]
		}
	}
	if review == nil || review.Input == nil || review.Input.Unstructured == nil || review.Input.Unstructured.Hint != "path" || review.Description != "Review a file" {
		t.Fatalf("kit:review not advertised as such: %+v", cmds)
	}
	e.prompt(t, id, "/kit:review src/main.go")
	if text := messages(e.c.testClient); !strings.Contains(text, "Review src/main.go") {
		t.Errorf("the command was not expanded: %q", text)
	}
}

func startWith(t *testing.T, e *ioEnv, examples ...string) {
	t.Helper()
	for _, ex := range examples {
		installExample(t, e.home, ex)
	}
	e.serve(t, acpsdk.ClientCapabilities{})
}

// TestResolveSlashPromptFallsThroughToExtensionAction: a line no command,
// skill or MCP prompt takes runs the plugin's UI action, whose message is
// the turn's text; a line naming no action goes to the model as typed.
func TestResolveSlashPromptFallsThroughToExtensionAction(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{}, "hello")
	id := e.newSession(t)
	e.prompt(t, id, "/hello:greet name=Ada")
	if text := messages(e.c.testClient); !strings.Contains(text, "Hello, Ada!") {
		t.Errorf("the action did not run: %q", text)
	}
	e.prompt(t, id, "/hello:nothing here")
	if text := messages(e.c.testClient); !strings.Contains(text, "unknown command: /hello:nothing here") || !strings.Contains(text, "/hello:nothing here") {
		t.Errorf("an unknown line: %q", text)
	}
}

// TestServeAdvertisesCommandsAfterEverySessionOpenResponse: the command
// list of session/new, load and resume arrives after their response.
func TestServeAdvertisesCommandsAfterEverySessionOpenResponse(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{}, "hello")
	id := e.newSession(t)
	e.prompt(t, id, "hi")
	check := func(method string, open func()) {
		from := len(e.tap.all())
		n := len(commandsSeen(e.c.testClient))
		open()
		waitFor(t, method+"'s available_commands_update", func() bool { return len(commandsSeen(e.c.testClient)) > n })
		resp, upd := -1, -1
		for i, f := range e.tap.all()[from:] {
			switch {
			case resp < 0 && strings.Contains(f, `"result"`) && !strings.Contains(f, `"method"`):
				resp = i
			case upd < 0 && strings.Contains(f, `"available_commands_update"`):
				upd = i
			}
		}
		if resp < 0 || upd < resp {
			t.Errorf("%s: response frame %d, command list frame %d", method, resp, upd)
		}
	}
	check("session/new", func() { id = e.newSession(t); e.prompt(t, id, "hello") })
	check("session/load", func() {
		if _, err := e.conn.LoadSession(ctxT(t), acpsdk.LoadSessionRequest{SessionId: id, Cwd: e.ws, McpServers: []acpsdk.McpServer{}}); err != nil {
			t.Fatal(err)
		}
	})
	check("session/resume", func() {
		if _, err := e.conn.ResumeSession(ctxT(t), acpsdk.ResumeSessionRequest{SessionId: id, Cwd: e.ws, McpServers: []acpsdk.McpServer{}}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestSessionMCPPromptsAreCommands: the prompts of the client's own MCP
// servers are commands (mcp__<server>__<prompt>, hint "arguments") that
// resolve when typed; a server adding a prompt sends the list again, and
// so does a plugin reload that changes it.
func TestSessionMCPPromptsAreCommands(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{})
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{
		Name: "probe", Command: os.Args[0], Env: []acpsdk.EnvVariable{{Name: mcpServerEnv, Value: filepath.Join(t.TempDir(), "exited")}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the command list", func() bool { return len(commandsSeen(e.c.testClient)) > 0 })
	first := commandsSeen(e.c.testClient)[0]
	if got := names(first); got != "mcp__probe__brief" {
		t.Fatalf("commands %q", got)
	}
	if in := first[0].Input; in == nil || in.Unstructured == nil || in.Unstructured.Hint != "arguments" || first[0].Description != "Brief someone" {
		t.Errorf("brief: %+v", first[0])
	}
	e.prompt(t, sess.SessionId, "/mcp__probe__brief the weather")
	if text := messages(e.c.testClient); !strings.Contains(text, "Brief me on the weather") {
		t.Errorf("the MCP prompt did not resolve: %q", text)
	}
	e.prompt(t, sess.SessionId, `call mcp__probe__add_prompt {}`)
	waitFor(t, "the list with the added prompt", func() bool {
		all := commandsSeen(e.c.testClient)
		return names(all[len(all)-1]) == "mcp__probe__brief mcp__probe__later"
	})
	// A reload that adds a plugin action sends the list again.
	n := len(commandsSeen(e.c.testClient))
	installExample(t, e.home, "hello")
	if _, err := e.srv.rt.Reload(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the list after the reload", func() bool { return len(commandsSeen(e.c.testClient)) > n })
	all := commandsSeen(e.c.testClient)
	if got := names(all[len(all)-1]); got != "hello:greet mcp__probe__brief mcp__probe__later" {
		t.Errorf("after the reload: %q", got)
	}
}

func installExample(t *testing.T, home, name string) { examplestest.Install(t, home, name) }

// TestSessionReloadExtensions: the reference's
// _reasonix.io/session/reloadExtensions rebuilds the plugins, and the
// new command list follows; an unknown session is -32602.
func TestSessionReloadExtensions(t *testing.T) {
	t.Parallel()
	e := startIO(t, acpsdk.ClientCapabilities{})
	id := e.newSession(t) // echo-provider alone: no command, no list sent
	if _, err := e.conn.CallExtension(ctxT(t), methodReloadExtensions, map[string]any{"sessionId": "20261203T021500-000000000000"}); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("unknown session: %v", err)
	}
	n := len(commandsSeen(e.c.testClient))
	installExample(t, e.home, "hello")
	res, err := e.conn.CallExtension(ctxT(t), methodReloadExtensions, map[string]any{"sessionId": id})
	if err != nil || string(res) != "{}" {
		t.Fatalf("reloadExtensions = %s, %v", res, err)
	}
	waitFor(t, "the list after the reload", func() bool { return len(commandsSeen(e.c.testClient)) > n })
	all := commandsSeen(e.c.testClient)
	if got := names(all[len(all)-1]); !strings.Contains(got, "hello:greet") {
		t.Errorf("after the reload: %q", got)
	}
}
