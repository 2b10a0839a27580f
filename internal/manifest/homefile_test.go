package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestUpdateHomeFile: the home and the file's folder are created, update
// sees the old content, the new file has perm, and an update error
// leaves the file alone.
func TestUpdateHomeFile(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(home, "keys", "k.key")
	var seen []string
	write := func(data string, err error) error {
		return UpdateHomeFile(home, path, 0o600, func(old []byte) ([]byte, error) {
			seen = append(seen, string(old))
			return []byte(data), err
		})
	}
	if err := write("one", nil); err != nil {
		t.Fatal(err)
	}
	if err := write("two", nil); err != nil {
		t.Fatal(err)
	}
	if err := write("three", errors.New("no")); err == nil || err.Error() != "no" {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("content %q", b)
	}
	if len(seen) != 3 || seen[0] != "" || seen[1] != "one" || seen[2] != "two" {
		t.Fatalf("update saw %q", seen)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
			if st, err := os.Stat(p); err != nil || st.Mode().Perm() != want {
				t.Fatalf("%s: mode %v (%v), want %v", p, st.Mode().Perm(), err, want)
			}
		}
	}
}
