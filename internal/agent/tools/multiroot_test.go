package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMultiRoot: a workspace of two folders resolves, lists, searches,
// edits and runs commands in both; relative paths are the primary
// root's, the other root's paths are shown absolute, a symlink from one
// root into the other stays inside, and a path in neither is refused.
func TestMultiRoot(t *testing.T) {
	t.Parallel()
	primary := tree(t, map[string]string{"a.txt": "primary a\n"})
	second := tree(t, map[string]string{"b dir/b.txt": "second b\n", ".gitignore": "skip.txt\n", "skip.txt": "ignored\n"})
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(second.Root, "b dir"), filepath.Join(primary.Root, "to-second")); err != nil {
		t.Fatal(err)
	}
	// The second folder named through a symlink counts as its real path.
	link := filepath.Join(t.TempDir(), "via link")
	if err := os.Symlink(second.Root, link); err != nil {
		t.Fatal(err)
	}
	ws, err := NewWorkspace(primary.Root, link, primary.Root, second.Root)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws.Roots(); len(got) != 2 || got[0] != primary.Root || got[1] != second.Root {
		t.Fatalf("Roots = %q", got)
	}
	bFile := filepath.Join(second.Root, "b dir", "b.txt")
	for _, tc := range []struct {
		path, want string
		outside    bool
	}{
		{path: "a.txt", want: "a.txt"},
		{path: "", want: "."},
		{path: bFile, want: filepath.ToSlash(bFile)},
		{path: filepath.Join(link, "b dir", "b.txt"), want: filepath.ToSlash(bFile)},
		{path: "to-second/b.txt", want: filepath.ToSlash(bFile)},
		{path: filepath.Join(second.Root, "new", "c.txt"), want: filepath.ToSlash(filepath.Join(second.Root, "new", "c.txt"))},
		{path: "b dir/b.txt", want: "b dir/b.txt"}, // relative: the primary root's (does not exist there)
		{path: filepath.Join(outside, "secret"), outside: true},
		{path: "../x", outside: true},
	} {
		got, err := ws.Resolve(tc.path)
		if tc.outside {
			if !errors.Is(err, ErrOutside) {
				t.Errorf("Resolve(%q) = %q, %v; want refused", tc.path, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Resolve(%q): %v", tc.path, err)
		} else if rel := ws.Rel(got); rel != tc.want {
			t.Errorf("Resolve(%q) shows %s, want %s", tc.path, rel, tc.want)
		}
	}

	env := &Env{Workspace: ws, Docs: &memDocs{open: map[string]string{}}}
	out, err := run(t, env, "read_file", map[string]any{"path": bFile})
	if err != nil || !strings.Contains(out, "second b") {
		t.Errorf("read_file in the second root = %q, %v", out, err)
	}
	out, err = run(t, env, "list_files", map[string]any{"path": second.Root, "recursive": true})
	if want := filepath.ToSlash(bFile); err != nil || !strings.Contains(out, want) || strings.Contains(out, "skip.txt") {
		t.Errorf("list_files of the second root = %q, %v; want %s and its .gitignore honoured", out, err, want)
	}
	out, err = run(t, env, "search_text", map[string]any{"pattern": "second", "path": second.Root})
	if want := filepath.ToSlash(bFile) + ":1: second b"; err != nil || !strings.Contains(out, want) {
		t.Errorf("search_text in the second root = %q, %v; want %s", out, err, want)
	}
	if _, err := run(t, env, "apply_edit", map[string]any{"path": bFile, "content": "edited\n"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(bFile); string(data) != "edited\n" {
		t.Errorf("after apply_edit the second root's file holds %q", data)
	}
	if _, err := run(t, env, "read_file", map[string]any{"path": filepath.Join(outside, "secret")}); !errors.Is(err, ErrOutside) {
		t.Errorf("read_file outside every root: %v", err)
	}
}

// TestMultiRootGoneFolder: a folder deleted since the editor named it is
// left out; one that is not a directory is an error.
func TestMultiRootGoneFolder(t *testing.T) {
	t.Parallel()
	primary := tree(t, map[string]string{"f": "x"})
	ws, err := NewWorkspace(primary.Root, filepath.Join(t.TempDir(), "gone"))
	if err != nil || len(ws.Roots()) != 1 {
		t.Errorf("with a gone folder: %v, %v", ws, err)
	}
	if _, err := NewWorkspace(primary.Root, filepath.Join(primary.Root, "f")); err == nil {
		t.Error("a file as a folder is accepted")
	}
}
