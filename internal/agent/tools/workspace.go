package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is the directory every tool is confined to.
type Workspace struct {
	// Root is the workspace directory with every symlink resolved, or
	// the URI of a workspace that is not a local folder.
	Root string
	// given is the directory as the caller named it (absolute, cleaned),
	// so an absolute path spelled through a symlinked root still resolves.
	given string
	// remote is set when Root is a URI: no path resolves.
	remote bool
}

// NewWorkspace returns the workspace rooted at dir, which must be an
// existing directory. A URI that is not a path (an editor's
// vscode-remote://… or untitled: workspace) is a workspace without local
// files: it can hold a session, and every file tool says it has no
// local workspace.
func NewWorkspace(dir string) (*Workspace, error) {
	if IsURI(dir) {
		return &Workspace{Root: dir, remote: true}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("workspace %q is not a directory", dir)
	}
	return &Workspace{Root: real, given: filepath.Clean(abs)}, nil
}

// ErrOutside is wrapped by every refusal of a path outside the workspace.
var ErrOutside = errors.New("outside the workspace")

// ErrNoLocal is wrapped by every refusal of a path in a workspace that is
// not a local folder.
var ErrNoLocal = errors.New("no local workspace")

// Local reports whether the workspace is a local folder.
func (w *Workspace) Local() bool { return !w.remote }

// isURI reports whether dir is a URI rather than a path: a scheme of at
// least two characters (so a Windows drive is not one) before a colon.
func IsURI(dir string) bool {
	scheme, _, ok := strings.Cut(dir, ":")
	if !ok || len(scheme) < 2 || filepath.IsAbs(dir) {
		return false
	}
	for i, c := range scheme {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// Resolve turns a path a tool was given (relative to the root, or
// absolute) into an absolute path inside the workspace with every symlink
// of its existing part resolved. The path need not exist yet, so a file
// can be created; its deepest existing ancestor must still resolve inside.
func (w *Workspace) Resolve(p string) (string, error) {
	if w.remote {
		return "", fmt.Errorf("%w: the editor's workspace is %s (not a local folder); file tools are unavailable", ErrNoLocal, w.Root)
	}
	if p == "" {
		p = "."
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(w.Root, abs)
	} else if rel, ok := relWithin(w.given, abs); ok && !within(w.Root, abs) {
		abs = filepath.Join(w.Root, rel)
	}
	if !within(w.Root, abs) {
		return "", fmt.Errorf("path %q is %w", p, ErrOutside)
	}
	real, err := evalExisting(abs)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	if !within(w.Root, real) {
		return "", fmt.Errorf("path %q leads %w through a symlink", p, ErrOutside)
	}
	return real, nil
}

// Rel returns abs relative to the root in slash form, "." for the root.
func (w *Workspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// evalExisting resolves the symlinks of the longest existing prefix of
// abs (a clean absolute path) and appends the rest, which does not exist
// and so cannot be a link.
func evalExisting(abs string) (string, error) {
	var rest []string
	cur := abs
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool {
	_, ok := relWithin(root, p)
	return ok
}

func relWithin(root, p string) (string, bool) {
	if p == root {
		return ".", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(p, prefix)
	return rest, ok
}
