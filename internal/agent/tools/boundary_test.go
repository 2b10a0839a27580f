package tools

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Every file tool goes through the one resolver (internal/fsbound): a
// path that leads outside the workspace through a symlink is refused, a
// link that stays inside is followed, and paths with spaces, relative
// and absolute, work.
func TestEveryToolStaysInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "outside")
	dir := filepath.Join(base, "my work space")
	for name, text := range map[string]string{
		"outside/secret.txt":           "SECRET",
		"outside/sub/deep.txt":         "SECRET",
		"my work space/sub dir/f.txt":  "INSIDE",
		"my work space/docs/notes.txt": "NOTES",
	} {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"out":         outside,
		"secret.txt":  filepath.Join(outside, "secret.txt"),
		"notes.txt":   filepath.Join("docs", "notes.txt"),    // relative, inside
		"docs link":   filepath.Join(dir, "docs"),            // absolute, inside
		"dangling":    filepath.Join(outside, "created.txt"), // to a file not there yet
		"dangling in": filepath.Join(dir, "docs", "later.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws, Docs: &memDocs{open: map[string]string{}}, Timeout: time.Minute}
	pwd := []string{"pwd"}
	if runtime.GOOS == "windows" {
		pwd = []string{"cmd", "/c", "cd"}
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read_file", map[string]any{"path": "secret.txt"}},
		{"read_file", map[string]any{"path": "out/secret.txt"}},
		{"read_file", map[string]any{"path": filepath.Join(dir, "out", "sub", "deep.txt")}},
		{"list_files", map[string]any{"path": "out"}},
		{"list_files", map[string]any{"path": "out/sub", "recursive": true}},
		{"search_text", map[string]any{"pattern": "SECRET", "path": "out"}},
		{"search_text", map[string]any{"pattern": "SECRET", "path": "secret.txt"}},
		{"apply_edit", map[string]any{"path": "out/new.txt", "content": "x"}},
		{"apply_edit", map[string]any{"path": "secret.txt", "content": "x"}},
		{"apply_edit", map[string]any{"path": "dangling", "content": "x"}},
		{"run_command", map[string]any{"command": pwd, "cwd": "out"}},
		{"run_command", map[string]any{"command": pwd, "cwd": "out/sub"}},
	} {
		out, err := run(t, env, tc.tool, tc.args)
		if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), "outside the workspace through a symlink") {
			t.Errorf("%s %v = %q, %v; want a refusal", tc.tool, tc.args, out, err)
		}
		if strings.Contains(out, "SECRET") || strings.Contains(out, outside) {
			t.Errorf("%s %v showed the outside: %q", tc.tool, tc.args, out)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("apply_edit created a file outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "created.txt")); err == nil {
		t.Error("apply_edit created a file outside the workspace through a dangling link")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
		t.Error("apply_edit wrote through a link out")
	}

	// Walks list a link but never follow it.
	for _, tc := range []struct {
		tool string
		args map[string]any
		not  string
	}{
		{"list_files", map[string]any{"path": ".", "recursive": true}, "deep.txt"},
		{"search_text", map[string]any{"pattern": "SECRET"}, "SECRET"},
	} {
		out, err := run(t, env, tc.tool, tc.args)
		if err != nil || strings.Contains(out, tc.not) {
			t.Errorf("%s %v = %q, %v", tc.tool, tc.args, out, err)
		}
	}

	// What stays inside works.
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "sub dir/f.txt"}, "INSIDE"},
		{"read_file", map[string]any{"path": "./sub dir/../sub dir/f.txt"}, "INSIDE"},
		{"read_file", map[string]any{"path": filepath.Join(dir, "sub dir", "f.txt")}, "INSIDE"},
		{"read_file", map[string]any{"path": "notes.txt"}, "NOTES"},
		{"read_file", map[string]any{"path": "docs link/notes.txt"}, "NOTES"},
		{"list_files", map[string]any{"path": "docs link"}, "notes.txt"},
		{"search_text", map[string]any{"pattern": "NOTES", "path": "docs link"}, "NOTES"},
		{"run_command", map[string]any{"command": pwd, "cwd": "sub dir"}, "sub dir"},
	} {
		out, err := run(t, env, tc.tool, tc.args)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("%s %v = %q, %v; want %q", tc.tool, tc.args, out, err, tc.want)
		}
	}
	if _, err := run(t, env, "apply_edit", map[string]any{"path": "dangling in", "content": "LATER"}); err != nil {
		t.Errorf("apply_edit through a dangling link inside: %v", err)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "docs", "later.txt")); string(b) != "LATER" {
		t.Errorf("apply_edit through a dangling link inside wrote %q", b)
	}
	if _, err := run(t, env, "apply_edit", map[string]any{"path": "docs link/new file.txt", "content": "NEW"}); err != nil {
		t.Errorf("apply_edit through a link inside: %v", err)
	} else if b, _ := os.ReadFile(filepath.Join(dir, "docs", "new file.txt")); string(b) != "NEW" {
		t.Errorf("apply_edit through a link inside wrote %q", b)
	}
}
