package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginMarketplace: `plugin marketplace add` reads a folder shaped
// like Anthropic's official directory, and `plugin install
// <name>@<marketplace>` installs each local form with the same preview:
// a plugin with plugin.json, one read from its layout, and a "strict":
// false entry whose marketplace entry is its manifest; an unknown plugin
// or marketplace gets one clear error (issue 27 item 15). A git entry is
// listed with its repository (TestPluginMarketplaceFromGit installs one).
func TestPluginMarketplace(t *testing.T) {
	t.Parallel()
	e := newPluginEnv(t)
	dir := directoryFixture(t)
	out, _ := e.mustRun(0, "marketplace", "add", dir)
	for _, w := range []string{
		`Added marketplace "example-directory" from ` + dir + ": 4 plugins.\n",
		"  foo-lsp 1.0.0 - Foo language server\n",
		"      https://github.com/example/qux.git (git)\n",
	} {
		if !strings.Contains(out, w) {
			t.Errorf("marketplace add lacks %q:\n%s", w, out)
		}
	}
	out, _ = e.mustRun(0, "marketplace", "list")
	if !strings.HasPrefix(out, "example-directory  "+dir+"\n") {
		t.Errorf("marketplace list:\n%s", out)
	}
	for _, tc := range []struct {
		ref  string
		code int
		want []string
	}{
		{"bar@example-directory", 0, []string{"  marketplace: bar@example-directory\n", "  manifest: .claude-plugin/plugin.json (legacy, no apiVersion)\n", "programs: FULL TRUST\n"}},
		{"baz@example-directory", 0, []string{"  manifest: no manifest file: read from the marketplace entry baz@example-directory\n", `Installed plugin "baz" 0.3.0 at `}},
		{"foo-lsp@example-directory", 0, []string{
			"  manifest: no manifest file: read from the marketplace entry foo-lsp@example-directory (strict: false)\n",
			"  description: Foo language server\n",
			"  lspServers: not served: rx-bridge runs no language servers of plugins",
		}},
		{"nope@example-directory", 1, []string{`marketplace "example-directory" has no plugin "nope"`}},
		{"bar@elsewhere", 1, []string{`no marketplace "elsewhere": add it with rx-bridge plugin marketplace add <dir>`}},
	} {
		stdout, stderr := e.mustRun(tc.code, "install", "--yes", tc.ref)
		for _, w := range tc.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("install %s lacks %q:\n%s%s", tc.ref, w, stdout, stderr)
			}
		}
	}
	// Installed, each reads the same from its copy.
	out, _ = e.mustRun(0, "show", "foo-lsp")
	if !strings.Contains(out, `plugin "foo-lsp" 1.0.0`) || !strings.Contains(out, "  description: Foo language server\n") {
		t.Errorf("show foo-lsp:\n%s", out)
	}
	if data, err := os.ReadFile(filepath.Join(e.home, "plugins", "foo-lsp", ".claude-plugin", "plugin.json")); err != nil || !strings.Contains(string(data), `"lspServers"`) {
		t.Errorf("foo-lsp's plugin.json = %s, %v", data, err)
	}
	e.mustRun(0, "doctor", "--static")
	// A strict: false entry cannot be linked: its manifest is elsewhere.
	_, stderr := e.mustRun(1, "install", "--yes", "--replace", "--link", "foo-lsp@example-directory")
	if !strings.Contains(stderr, "foo-lsp@example-directory has no plugin.json: its manifest is its marketplace entry, so it can only be copied (drop --link)") {
		t.Errorf("--link: %s", stderr)
	}
	// Bad input names what is wrong.
	_, stderr = e.mustRun(1, "marketplace", "add", directoryFixture(t, "plugins", "bar"))
	if !strings.Contains(stderr, "is not a marketplace: it has no .claude-plugin/marketplace.json") {
		t.Errorf("marketplace add of a plugin: %s", stderr)
	}
	out, _ = e.mustRun(0, "marketplace", "remove", "example-directory")
	if !strings.Contains(out, `Removed marketplace "example-directory"; the plugins installed from it stay installed.`) {
		t.Errorf("remove: %s", out)
	}
	e.mustRun(1, "marketplace", "remove", "example-directory")
	e.mustRun(2, "marketplace", "frob")
}
