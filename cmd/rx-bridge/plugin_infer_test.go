package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginInstallWithoutPluginJSON: a package with no plugin.json (14
// of the 39 in Anthropic's official directory) is read from its folder
// layout as Claude Code reads it: the name is the folder's, commands/,
// agents/, skills/, hooks/hooks.json and .mcp.json its contents. A folder
// with none of them, or whose name is no plugin name, is refused naming
// what is wrong (issue 27 item 15).
func TestPluginInstallWithoutPluginJSON(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	odd := e.plugin("Odd Name", map[string]string{"commands/x.md": "x"})
	for _, tc := range []struct {
		name, src string
		code      int
		want      []string
	}{
		{"layout", directoryFixture(t, "plugins", "baz"), 0, []string{
			`Install plugin "baz" from `,
			"  manifest: no manifest file: read from the folder layout (Claude Code: no .claude-plugin/plugin.json)\n",
			"  hook Stop match=* (shell): " + filepath.Join(e.home, "plugins", "baz", "hooks", "done.sh") + "\n",
		}},
		{"nothing to read", directoryFixture(t, "plugins", "foo-lsp"), 1, []string{
			"and none of Claude Code's plugin folders (commands/, agents/, skills/, hooks/hooks.json, .mcp.json) to read one from",
		}},
		{"folder name", odd, 1, []string{
			`has no plugin.json, so its name is its folder's, but invalid plugin name "Odd Name"`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr := e.mustRun(tc.code, "install", "--dry-run", tc.src)
			for _, w := range tc.want {
				if !strings.Contains(stdout+stderr, w) {
					t.Errorf("lacks %q:\n%s%s", w, stdout, stderr)
				}
			}
		})
	}

	// Installed, it serves what Claude Code would, under the folder's
	// name, and the copy carries the plugin.json that stood for it.
	e2 := newPluginEnv(t)
	e2.mustRun(0, "install", "--yes", directoryFixture(t, "plugins", "baz"))
	out, _ := e2.mustRun(0, "show", "baz")
	for _, w := range []string{
		"  serves: 1 commands, 0 prompts, 1 skills, 1 agents, 1 hooks, 1 MCP servers, 0 themes\n",
		"    /baz:tidy [dir] - Tidy the workspace\n",
		"    /baz:agent:sweeper [subagent] - Sweeps up\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("show lacks %q:\n%s", w, out)
		}
	}
	if data, err := os.ReadFile(filepath.Join(e2.home, "plugins", "baz", ".claude-plugin", "plugin.json")); err != nil || string(data) != `{"name":"baz"}` {
		t.Errorf("the copy's plugin.json = %q, %v", data, err)
	}
	if _, err := os.Stat(directoryFixture(t, "plugins", "baz", ".claude-plugin")); err == nil {
		t.Error("the install wrote into the source")
	}
	out, _ = e2.mustRun(0, "doctor", "--static", "baz")
	if !strings.Contains(out, "baz: ok\n") {
		t.Errorf("doctor:\n%s", out)
	}
	// Linked, it is read from its layout every time.
	e3 := newPluginEnv(t)
	e3.mustRun(0, "install", "--yes", "--link", directoryFixture(t, "plugins", "baz"))
	out, _ = e3.mustRun(0, "doctor", "--static", "baz")
	if !strings.Contains(out, "ok    manifest no manifest file: read from the folder layout") {
		t.Errorf("doctor of a link:\n%s", out)
	}
}
