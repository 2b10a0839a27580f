package fsbound

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// tree makes base/ws (the root, with a space in a folder name) and
// base/outside, with symlinks in and out.
func tree(t *testing.T) (base, ws string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(base, "ws")
	for name, text := range map[string]string{
		"ws/my dir/notes.md": "NOTES",
		"ws/src/a.go":        "package a",
		"outside/secret":     "SECRET",
		"outside/sub/x.md":   "X",
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
		"ws/secret.md":  filepath.Join(base, "outside", "secret"),
		"ws/out":        filepath.Join(base, "outside"),
		"ws/root":       string(filepath.Separator),
		"ws/in.md":      filepath.Join(ws, "my dir", "notes.md"),
		"ws/srclink":    filepath.Join("src"), // relative, stays inside
		"ws/broken":     filepath.Join(base, "nowhere"),
		"ws/src/parent": "..", // back to the root: inside
		"ws/dangle-out": filepath.Join(base, "outside", "new.txt"),
		"ws/dangle-in":  filepath.Join("src", "later.go"),
		"ws/loop1":      "loop2",
		"ws/loop2":      "loop1",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return base, ws
}

func TestResolve(t *testing.T) {
	t.Parallel()
	base, ws := tree(t)
	link := filepath.Join(base, "wslink")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	r, err := New(link, "the workspace")
	if err != nil {
		t.Fatal(err)
	}
	if r.Real() != ws {
		t.Fatalf("Real() = %s, want %s", r.Real(), ws)
	}
	for _, tc := range []struct {
		path, want string
		outside    bool
		link       bool
	}{
		{path: "", want: ws},
		{path: "my dir/notes.md", want: filepath.Join(ws, "my dir", "notes.md")},
		{path: "./src/../src/a.go", want: filepath.Join(ws, "src", "a.go")},
		{path: "in.md", want: filepath.Join(ws, "my dir", "notes.md")},
		{path: "srclink/a.go", want: filepath.Join(ws, "src", "a.go")},
		{path: "src/parent/my dir", want: filepath.Join(ws, "my dir")},
		{path: "new/file.txt", want: filepath.Join(ws, "new", "file.txt")},
		{path: filepath.Join(link, "src", "a.go"), want: filepath.Join(ws, "src", "a.go")},
		{path: filepath.Join(ws, "src"), want: filepath.Join(ws, "src")},
		{path: "dangle-in", want: filepath.Join(ws, "src", "later.go")},
		{path: "..", outside: true},
		{path: "dangle-out", outside: true, link: true},
		{path: "broken/x", outside: true, link: true},
		{path: "../outside/secret", outside: true},
		{path: filepath.Join(base, "outside", "secret"), outside: true},
		{path: base, outside: true},
		{path: ws + "x", outside: true},
		{path: "secret.md", outside: true, link: true},
		{path: "out/sub/x.md", outside: true, link: true},
		{path: "out/not-yet", outside: true, link: true},
		{path: "root", outside: true, link: true},
	} {
		got, err := r.Resolve(tc.path)
		switch {
		case tc.outside:
			var oe *OutsideError
			if !errors.Is(err, ErrOutside) || !errors.As(err, &oe) || oe.Link != tc.link || !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("Resolve(%q) = %q, %v; want a refusal (link %v)", tc.path, got, err, tc.link)
			}
		case err != nil || got != tc.want:
			t.Errorf("Resolve(%q) = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}

func TestResolveEndsLinkLoops(t *testing.T) {
	t.Parallel()
	_, ws := tree(t)
	r, err := New(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := r.Resolve("loop1/x"); err == nil {
		t.Fatalf("Resolve(loop1/x) = %s", got)
	}
}

func TestReadDirKeepsOnlyEntriesInside(t *testing.T) {
	t.Parallel()
	base, ws := tree(t)
	r, err := New(ws, "")
	if err != nil {
		t.Fatal(err)
	}
	entries, outside, err := r.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		if !r.Contains(e.Real) {
			t.Errorf("%s resolves to %s, outside", e.Path, e.Real)
		}
		got = append(got, e.Name)
	}
	if want := []string{"in.md", "my dir", "src", "srclink"}; !slices.Equal(got, want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	var want []string
	for _, n := range []string{"out", "root", "secret.md"} {
		want = append(want, filepath.Join(ws, n))
	}
	if !slices.Equal(outside, want) {
		t.Errorf("outside %v, want %v", outside, want)
	}
	if _, _, err := r.ReadDir(filepath.Join(ws, "out")); !errors.Is(err, ErrOutside) {
		t.Errorf("ReadDir through a link out: %v", err)
	}
	f, real, err := r.Open("in.md")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if real != filepath.Join(ws, "my dir", "notes.md") {
		t.Errorf("Open resolved to %s", real)
	}
	if _, _, err := r.Open("secret.md"); !errors.Is(err, ErrOutside) {
		t.Errorf("Open(secret.md): %v", err)
	}
	_ = base
}

func TestNewRefusesWhatIsNotADirectory(t *testing.T) {
	t.Parallel()
	_, ws := tree(t)
	for _, p := range []string{filepath.Join(ws, "src", "a.go"), filepath.Join(ws, "missing"), filepath.Join(ws, "broken")} {
		if _, err := New(p, ""); err == nil {
			t.Errorf("New(%s) accepted", p)
		}
	}
}

func TestWithinComparesWholeElements(t *testing.T) {
	t.Parallel()
	sep := string(filepath.Separator)
	root := filepath.Join(sep+"a", "b c")
	for p, want := range map[string]bool{
		root:                             true,
		filepath.Join(root, "d"):         true,
		root + "d":                       false,
		filepath.Join(sep+"a", "b"):      false,
		sep + "a":                        false,
		filepath.Join(root, "..", "x"):   false,
		filepath.Join(root, "d", "e.md"): true,
	} {
		if got := Within(root, filepath.Clean(p)); got != want {
			t.Errorf("Within(%q, %q) = %v", root, p, got)
		}
	}
	if !Within(sep, filepath.Join(sep, "x")) {
		t.Errorf("everything is within the file system root")
	}
}
