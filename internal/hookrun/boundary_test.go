package hookrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Claude Code package's CLAUDE.md is injected into the model's context
// at SessionStart, so it is read only inside the plugin root (the
// workspace boundary, internal/fsbound): one linked out is a warning and
// no hook; one linked inside still is one.
func TestPluginClaudeMDLinkedOutIsNotInjected(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "id_rsa")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := loadPackage(t, "out", map[string]string{".claude-plugin/plugin.json": `{"name":"out"}`})
	if err := os.Symlink(secret, filepath.Join(out.Root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	in := loadPackage(t, "in", map[string]string{".claude-plugin/plugin.json": `{"name":"in"}`, "docs/guide.md": "Be careful."})
	if err := os.Symlink(filepath.Join("docs", "guide.md"), filepath.Join(in.Root, "CLAUDE.md")); err != nil {
		t.Fatal(err)
	}
	r, warns := Load(Sources{Workspace: t.TempDir(), Packages: []Package{out, in}})
	defer r.Close()
	l := r.Listing()
	if len(l) != 1 || l[0].Plugin != "in" || l[0].ContextFile != filepath.Join(in.Root, "CLAUDE.md") {
		t.Fatalf("listing %+v", l)
	}
	if len(warns) != 1 || warns[0].Plugin != "out" || !strings.Contains(warns[0].String(), "CLAUDE.md") || !strings.Contains(warns[0].String(), "outside the plugin root") {
		t.Fatalf("warnings %v", warns)
	}
}
