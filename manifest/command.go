package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// shells are the interpreters a runtime command may never be, compared by
// lower-cased base name with any .exe stripped: an exec-form runtime must
// not hand its args to something that interprets them.
var shells = []string{"sh", "bash", "zsh", "fish", "dash", "ksh", "cmd", "powershell", "pwsh"}

// shellName returns the shell a command names, or "".
func shellName(cmd string) string {
	s := strings.ReplaceAll(strings.TrimSpace(cmd), `\`, "/")
	base := strings.ToLower(s[strings.LastIndex(s, "/")+1:])
	base = strings.TrimSuffix(base, ".exe")
	for _, sh := range shells {
		if base == sh {
			return sh
		}
	}
	return ""
}

// ExpandedCommand resolves Command for a plugin installed at root: the
// RootVar prefix becomes root, and the result must be an absolute path to a
// program that is not a shell. There is no PATH lookup, so what the FULL
// TRUST block shows is exactly what runs.
func (rt *Runtime) ExpandedCommand(root string) (string, error) {
	c := strings.TrimSpace(rt.Command)
	if rest, ok := strings.CutPrefix(c, RootVar); ok {
		rest = strings.ReplaceAll(rest, `\`, "/")
		c = filepath.Join(root, filepath.FromSlash(rest))
	}
	if !filepath.IsAbs(c) {
		return "", fmt.Errorf("runtime.command %q is not an absolute path after expansion", rt.Command)
	}
	if sh := shellName(c); sh != "" {
		return "", fmt.Errorf("runtime.command %q is the shell %s; runtimes run in exec form only", rt.Command, sh)
	}
	return filepath.Clean(c), nil
}

// CheckCommand is the launch check of the command for a plugin at root,
// run by exthost before every start and by plugin doctor: it expands it,
// and the program must exist, not turn out to be a shell behind a symlink,
// stay inside root when it is named inside root, and be an executable
// regular file. It returns the expanded path.
func (rt *Runtime) CheckCommand(root string) (string, error) {
	c, err := rt.ExpandedCommand(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(c)
	if err != nil {
		if os.IsNotExist(err) {
			return c, fmt.Errorf("runtime.command %s does not exist", c)
		}
		return c, fmt.Errorf("runtime.command %s: %w", c, err)
	}
	// The shell test first: a link to a shell is refused as a shell,
	// wherever the shell lives.
	if sh := shellName(real); sh != "" {
		return c, fmt.Errorf("runtime.command %s resolves to the shell %s", c, real)
	}
	if realRoot, err := filepath.EvalSymlinks(root); err == nil && within(filepath.Clean(root), c) && !within(realRoot, real) {
		return c, fmt.Errorf("runtime.command %s escapes the plugin root through a symlink", c)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return c, fmt.Errorf("runtime.command %s: %w", c, err)
	}
	if !fi.Mode().IsRegular() {
		return c, fmt.Errorf("runtime.command %s is not a regular file", c)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0 {
		return c, fmt.Errorf("runtime.command %s is not executable (chmod +x it)", c)
	}
	return c, nil
}

// within reports whether p is dir or below it; both must be clean.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
