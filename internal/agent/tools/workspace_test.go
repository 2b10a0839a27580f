package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestResolveConfinement(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{"a/b.txt": "x", "c.txt": "y"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"out":      outside,
		"outfile":  filepath.Join(outside, "secret"),
		"a/inside": filepath.Join(ws.Root, "c.txt"),
		"loop":     filepath.Join(ws.Root, "loop"),
	} {
		if err := os.Symlink(target, filepath.Join(ws.Root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path    string
		want    string // relative to the root; "" when refused
		outside bool
	}{
		{path: "", want: "."},
		{path: ".", want: "."},
		{path: "a/b.txt", want: "a/b.txt"},
		{path: "a/../c.txt", want: "c.txt"},
		{path: "new/dir/file.go", want: "new/dir/file.go"},
		{path: filepath.Join(ws.Root, "c.txt"), want: "c.txt"},
		{path: "a/inside", want: "c.txt"},
		{path: "..", outside: true},
		{path: "../x", outside: true},
		{path: "/etc/passwd", outside: true},
		{path: "out", outside: true},
		{path: "out/secret", outside: true},
		{path: "out/new-file", outside: true},
		{path: "outfile", outside: true},
		{path: "loop"},
	} {
		got, err := ws.Resolve(tc.path)
		switch {
		case tc.want != "":
			if err != nil {
				t.Errorf("Resolve(%q): %v", tc.path, err)
			} else if rel := ws.Rel(got); rel != tc.want {
				t.Errorf("Resolve(%q) = %s, want %s", tc.path, rel, tc.want)
			}
		case err == nil:
			t.Errorf("Resolve(%q) = %s, want a refusal", tc.path, got)
		case tc.outside && !errors.Is(err, ErrOutside):
			t.Errorf("Resolve(%q): %v, want ErrOutside", tc.path, err)
		}
	}
}

func TestResolveThroughSymlinkedRoot(t *testing.T) {
	t.Parallel()
	real := tree(t, map[string]string{"f": "x"})
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real.Root, link); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(link)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ws.Resolve(filepath.Join(link, "f"))
	if err != nil || ws.Rel(got) != "f" {
		t.Fatalf("Resolve through the root's symlink = %q, %v", got, err)
	}
}

// TestNoLocalWorkspace: an editor workspace that is a URI, not a folder,
// holds a session, and every built-in tool says plainly that there are
// no local files (never a panic, never the process's working directory).
func TestNoLocalWorkspace(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"vscode-remote://ssh-remote+x/home/a", "untitled:Untitled-1", "vscode-vfs://github/o/r"} {
		ws, err := NewWorkspace(dir)
		if err != nil {
			t.Fatalf("NewWorkspace(%q): %v", dir, err)
		}
		if ws.Local() || ws.Root != dir {
			t.Fatalf("NewWorkspace(%q) = %+v, want a non-local workspace named by its URI", dir, ws)
		}
		env := &Env{Workspace: ws, Docs: &memDocs{}, Timeout: time.Second}
		for name, args := range map[string]string{
			"read_file":   `{"path":"a.txt"}`,
			"list_files":  `{}`,
			"search_text": `{"pattern":"x"}`,
			"apply_edit":  `{"path":"a.txt","content":"x"}`,
			"run_command": `{"command":["true"]}`,
		} {
			tool, ok := Builtins().Lookup(name)
			if !ok {
				t.Fatalf("no tool %s", name)
			}
			_, err := tool.Run(context.Background(), env, json.RawMessage(args))
			if !errors.Is(err, ErrNoLocal) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "file tools are unavailable") {
				t.Errorf("%s in %s: %v, want a no-local-workspace error naming it", name, dir, err)
			}
		}
	}
	for _, dir := range []string{"C:x", "/tmp", "relative/dir", "a:b"} {
		if IsURI(dir) {
			t.Errorf("IsURI(%q) = true", dir)
		}
	}
}
