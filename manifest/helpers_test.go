package manifest

import (
	"os"
	"path/filepath"
	"runtime"
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
// makes none: Windows lets only an administrator or Developer Mode create
// symlinks, and Wine 8's CreateSymbolicLinkW is a stub that reports
// success and creates nothing.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	err := os.Symlink(target, link)
	if runtime.GOOS != "windows" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Skipf("this Windows creates no symlinks (it needs Developer Mode or an administrator): %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skip("this Windows creates no symlinks: os.Symlink reported success and made none (Wine 8's CreateSymbolicLinkW is a stub)")
	}
}

// exe is the file name of a program named name here: Windows starts only
// files named .exe or .com (the runtime.command rule), Unix any
// executable file.
func exe(name string) string {
	if runtime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}
