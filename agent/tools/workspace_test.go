package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
