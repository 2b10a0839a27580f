package manifest

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
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
			symlink(t, content[2:], p)
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

// symlink makes link point at target, or skips the test where this system
// makes none.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if !symlinks() {
		t.Skip("this Windows creates no symlinks (Wine 8's CreateSymbolicLinkW is a stub that reports success and makes none; Windows needs Developer Mode or an administrator)")
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// symlinks reports whether this system makes symlinks: always on Unix; on
// Windows only for an administrator or in Developer Mode, and never under
// Wine 8, whose os.Symlink reports success and makes nothing.
var symlinks = sync.OnceValue(func() bool {
	if runtime.GOOS != "windows" {
		return true
	}
	dir, err := os.MkdirTemp("", "symlink-probe")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, "link")
	if os.WriteFile(filepath.Join(dir, "target"), nil, 0o644) != nil || os.Symlink("target", link) != nil {
		return false
	}
	fi, err := os.Lstat(link)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
})

// exe is the file name of a program named name here: Windows starts only
// files named .exe or .com (the runtime.command rule), Unix any
// executable file.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
