package manifest

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// cleanRel applies the lexical half of the path rule to one manifest path:
// it must be relative and, once cleaned, stay inside the plugin root.
// Backslashes count as separators and drive letters as absolute on every
// OS, so a manifest written on Windows is judged the same everywhere. The
// result uses forward slashes.
func cleanRel(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", fmt.Errorf("plugin path must not be empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("plugin path %q contains a NUL byte", p)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if strings.HasPrefix(s, "/") || hasDrive(s) || filepath.IsAbs(p) {
		return "", escapesRoot(p)
	}
	c := path.Clean(s)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", escapesRoot(p)
	}
	return c, nil
}

func escapesRoot(p string) error {
	return fmt.Errorf("plugin path %q must be relative and stay inside the plugin root", p)
}

func hasDrive(s string) bool {
	return len(s) >= 2 && s[1] == ':' && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }
