package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

// writeTree creates files under dir; a value ending in "/" makes a
// directory, "->target" a symlink, and "+x:" prefixes an executable.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case len(content) > 0 && content[len(content)-1] == '/':
			err = os.MkdirAll(p, 0o755)
		case len(content) > 2 && content[:2] == "->":
			err = os.Symlink(content[2:], p)
		case len(content) > 3 && content[:3] == "+x:":
			err = os.WriteFile(p, []byte(content[3:]), 0o755)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// pluginDir makes a plugin root with the given manifest and files.
func pluginDir(t *testing.T, manifest string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{"reasonix-plugin.json": manifest}
	for k, v := range files {
		all[k] = v
	}
	writeTree(t, dir, all)
	return dir
}
