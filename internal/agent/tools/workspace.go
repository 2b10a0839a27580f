package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// Workspace is the set of directories every tool is confined to: the
// primary root and the editor's other workspace folders (a multi-root
// workspace). What a path may reach is decided by internal/fsbound (the
// workspace boundary): a path must resolve, symlinks followed, inside the
// real path of one of the roots. A relative path is relative to the
// primary root; a file of another root is named by its absolute path,
// which is how the tools show it.
type Workspace struct {
	// Root is the primary root with every symlink resolved, or the URI of
	// a workspace that is not a local folder.
	Root string
	// bound confines paths to Root; nil when remote.
	bound *fsbound.Root
	// remote is set when Root is a URI: no path resolves.
	remote bool
	// shown is how the tools show this root's paths: "" (relative) for
	// the primary root, its absolute slash path for another.
	shown string
	// others are the other roots, in the editor's order (each without
	// others of its own).
	others []*Workspace
}

// NewWorkspace returns the workspace whose primary root is dir, an
// existing directory, with the other roots in more (existing
// directories; one that is the primary root, or repeats an earlier one,
// counts once, and one that no longer exists is left out). A URI that is not a path (an editor's vscode-remote://…
// or untitled: workspace) is a workspace without local files: it can
// hold a session, and every file tool says it has no local workspace;
// its other roots are ignored.
func NewWorkspace(dir string, more ...string) (*Workspace, error) {
	if IsURI(dir) {
		return &Workspace{Root: dir, remote: true}, nil
	}
	b, err := fsbound.New(dir, "the workspace")
	if err != nil {
		return nil, fmt.Errorf("workspace %q: %w", dir, err)
	}
	w := &Workspace{Root: b.Real(), bound: b}
	seen := map[string]bool{w.Root: true}
	for _, m := range more {
		if m == "" || IsURI(m) {
			continue
		}
		ob, err := fsbound.New(m, "")
		if errors.Is(err, fs.ErrNotExist) {
			continue // a folder deleted since the editor named it
		}
		if err != nil {
			return nil, fmt.Errorf("workspace folder %q: %w", m, err)
		}
		if seen[ob.Real()] {
			continue
		}
		seen[ob.Real()] = true
		w.others = append(w.others, &Workspace{Root: ob.Real(), bound: ob, shown: filepath.ToSlash(ob.Real())})
	}
	return w, nil
}

// Roots are the workspace's roots, the primary first (symlinks
// resolved).
func (w *Workspace) Roots() []string {
	roots := []string{w.Root}
	for _, o := range w.others {
		roots = append(roots, o.Root)
	}
	return roots
}

// RootOf is the root that holds abs (an absolute path, symlinks
// resolved): the primary root when none does.
func (w *Workspace) RootOf(abs string) string { return w.rootOf(abs).Root }

// rootOf is the root that holds abs, the primary when none does.
func (w *Workspace) rootOf(abs string) *Workspace {
	if w.remote || within(w.Root, abs) {
		return w
	}
	for _, o := range w.others {
		if within(o.Root, abs) {
			return o
		}
	}
	return w
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
//
// A relative path (and "") is the primary root's; an absolute one may be
// inside any root, and a symlink in one root may lead into another. A
// path inside none is refused with the primary root's refusal.
func (w *Workspace) Resolve(p string) (string, error) {
	if w.remote {
		return "", fmt.Errorf("%w: the editor's workspace is %s (not a local folder); file tools are unavailable", ErrNoLocal, w.Root)
	}
	abs, err := w.bound.Resolve(p)
	if err == nil || len(w.others) == 0 || !errors.Is(err, ErrOutside) {
		return abs, err
	}
	try := filepath.Clean(p)
	var out *fsbound.OutsideError
	if errors.As(err, &out) && out.Link {
		// Lexically in the primary root, a symlink leads out: inside
		// the workspace if it leads into another root.
		if !filepath.IsAbs(try) {
			try = filepath.Join(w.Root, try)
		}
		real, rerr := fsbound.EvalExisting(try)
		if rerr != nil {
			return "", err
		}
		try = real
	}
	if !filepath.IsAbs(try) {
		return "", err
	}
	for _, o := range w.others {
		if a, oerr := o.bound.Resolve(try); oerr == nil {
			return a, nil
		} else if !errors.Is(oerr, ErrOutside) {
			return "", oerr
		}
	}
	return "", err
}

// Rel shows abs as the tools show paths: relative to the primary root in
// slash form ("." for the root), or, inside another root, its absolute
// slash path.
func (w *Workspace) Rel(abs string) string {
	r := w.rootOf(abs)
	rel, err := filepath.Rel(r.Root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	if r.shown != "" {
		return path.Join(r.shown, filepath.ToSlash(rel))
	}
	return filepath.ToSlash(rel)
}

// abs is the path a path the tools showed (Rel) names.
func (w *Workspace) abs(shown string) string {
	p := filepath.FromSlash(shown)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(w.Root, p)
}

// within reports whether p is root or below it (both clean and absolute).
func within(root, p string) bool { return fsbound.Within(root, p) }
