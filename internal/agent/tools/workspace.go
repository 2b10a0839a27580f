package tools

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// Workspace is the directory every tool is confined to. What a path may
// reach is decided by internal/fsbound (the workspace boundary): a path
// must resolve, symlinks followed, inside the workspace's real path.
type Workspace struct {
	// Root is the workspace directory with every symlink resolved, or
	// the URI of a workspace that is not a local folder.
	Root string
	// bound confines paths to Root; nil when remote.
	bound *fsbound.Root
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
	b, err := fsbound.New(dir, "the workspace")
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	return &Workspace{Root: b.Real(), bound: b}, nil
}

// ErrOutside is wrapped by every refusal of a path outside the workspace
// (it is fsbound's: the one boundary).
var ErrOutside = fsbound.ErrOutside

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
// of its existing part resolved (fsbound.Root.Resolve). The path need not
// exist yet, so a file can be created; its deepest existing ancestor must
// still resolve inside.
func (w *Workspace) Resolve(p string) (string, error) {
	if w.remote {
		return "", fmt.Errorf("%w: the editor's workspace is %s (not a local folder); file tools are unavailable", ErrNoLocal, w.Root)
	}
	return w.bound.Resolve(p)
}

// Rel returns abs relative to the root in slash form, "." for the root.
func (w *Workspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool { return fsbound.Within(root, p) }
