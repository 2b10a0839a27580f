package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// directoryFixture is a folder shaped like Anthropic's official plugin
// directory: a .claude-plugin/marketplace.json at the top, plugins/bar
// with a plugin.json, hooks and a .mcp.json, plugins/baz and
// plugins/foo-lsp without a plugin.json.
func directoryFixture(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"testdata", "claude-directory"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPluginFullTrustListsEveryProgram: a Claude-format package has no
// runtime, but its hook commands and stdio MCP servers run with the
// user's environment; the install preview, show and doctor list each of
// them, with its arguments and the variables it adds, in a FULL TRUST
// block (issue 27 item 14).
func TestPluginFullTrustListsEveryProgram(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	src := directoryFixture(t, "plugins", "bar")
	root := filepath.Join(e.home, "plugins", "bar")
	want := []string{
		"programs: FULL TRUST\n",
		"  hook PreToolUse match=Bash (shell): python3 \"" + filepath.Join(root, "hooks", "check.py") + "\"\n",
		"  hook SessionStart match=* (shell): echo bar ready\n",
		"  MCP server bar-db [stdio]: npx -y @example/bar-db-mcp --data " + filepath.Join(root, "data") + "\n",
		"    env: BAR_TOKEN=<set, 12 chars>\n",
		"  risk: " + manifest.ProgramsRisk + ".\n",
	}
	check := func(what, out string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", what, w, out)
			}
		}
		block := out[strings.Index(out, "programs: FULL TRUST"):]
		if strings.Contains(block, src) {
			t.Errorf("%s shows the source root, not the one it will have:\n%s", what, out)
		}
		if strings.Contains(out, "bar-remote [http]:") && strings.Contains(out, "MCP server bar-remote") {
			t.Errorf("%s lists an http server as a program:\n%s", what, out)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"install --dry-run", []string{"install", "--dry-run", src}, 0},
		{"install preview", []string{"install", src}, 1},
	} {
		out, _ := e.mustRun(tc.code, tc.args...)
		check(tc.name, out)
	}
	e.mustRun(0, "install", "--yes", src)
	out, _ := e.mustRun(0, "show", "bar")
	check("show", out)
	out, _ = e.mustRun(0, "doctor", "--static", "bar")
	check("doctor", out)

	out, _ = e.mustRun(0, "show", "--json", "bar")
	var shown showJSON
	if err := json.Unmarshal([]byte(out), &shown); err != nil {
		t.Fatal(err)
	}
	if len(shown.Programs) != 3 || shown.Programs[2].Kind != manifest.ProgramMCP || len(shown.Programs[2].Args) != 4 {
		t.Errorf("show --json programs = %+v", shown.Programs)
	}
	out, _ = e.mustRun(0, "doctor", "--static", "--json", "bar")
	var doc doctorJSON
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Plugins) != 1 {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := doc.Plugins[0].Programs; len(got) != 3 || got[0].Kind != manifest.ProgramHook || !got[0].Shell {
		t.Errorf("doctor --json programs = %+v", got)
	}
}
