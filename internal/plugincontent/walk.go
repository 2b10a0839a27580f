package plugincontent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// The bounds of one root's walk. A commands root is walked to any depth
// the reference allows up to MaxWalkDepth levels (a root's own entries
// are level 1); skills and agents roots stop at Options.SkillDepth. No
// walk examines more than Options.MaxWalkEntries entries (default
// DefaultMaxWalkEntries); what lies past either bound is not served and
// said once per root.
const (
	MaxWalkDepth          = 16
	DefaultMaxWalkEntries = 10000
)

// walker reads one root's files inside its bound (internal/fsbound): a
// file or directory that leads outside through a symlink is a warning
// naming it, and is neither read nor entered.
type walker struct {
	root   Root
	bound  *fsbound.Root
	warns  *[]Warning
	max    int             // the entry budget
	left   int             // entries the walk may still examine
	seen   map[string]bool // directories entered, by resolved path
	capped bool            // the entry budget ran out (and said so)
	deep   bool            // a directory past the depth bound was met (and said so)
}

// entry is one directory entry with symlinks followed, inside the bound.
type entry struct {
	// name is the entry's name, path its path as spelled under the
	// root (what is shown), real its resolved path (what is read).
	name, path, real string
	info             os.FileInfo
}

// newWalker returns the walker of r, or nil (after a warning when r
// leads outside its bound) when r cannot be read. budget is the entry
// budget.
func newWalker(r Root, bounds map[string]*fsbound.Root, budget int, warns *[]Warning) *walker {
	dir, name := r.Bound, r.boundName
	if dir == "" {
		dir, name = r.Path, ""
		if fi, err := os.Stat(r.Path); err == nil && !fi.IsDir() {
			dir = filepath.Dir(r.Path)
		}
	}
	if name == "" {
		name = dir
	}
	key := dir + "\x00" + name
	b, ok := bounds[key]
	if !ok {
		b, _ = fsbound.New(dir, name) // nil when the bound is missing: nothing of it is served
		bounds[key] = b
	}
	if b == nil {
		return nil
	}
	w := &walker{root: r, bound: b, warns: warns, max: budget, left: budget, seen: map[string]bool{}}
	if _, err := w.resolve(r.Path); err != nil {
		return nil
	}
	return w
}

func (w *walker) warn(path, msg string) {
	*w.warns = append(*w.warns, Warning{Path: path, Plugin: w.root.Plugin, Msg: msg})
}

// resolve is p's real path inside the bound. A path that leads outside
// is a warning naming it; any error means p is not served.
func (w *walker) resolve(p string) (string, error) {
	real, err := w.bound.Resolve(p)
	var oe *fsbound.OutsideError
	switch {
	case errors.As(err, &oe) && !oe.Link:
		w.warn(p, p+" is outside "+w.bound.Name()+"; not served")
	case err != nil && errors.Is(err, fsbound.ErrOutside):
		w.warnOutside(p)
	}
	return real, err
}

func (w *walker) warnOutside(p string) {
	w.warn(p, p+" leads outside "+w.bound.Name()+" through a symlink; not served")
}

// enter reports whether the directory real is new to the walk, marking
// it seen, so symlink cycles end.
func (w *walker) enter(real string) bool {
	if w.seen[real] {
		return false
	}
	w.seen[real] = true
	return true
}

// tooDeep says, once per root, that dir lies past the depth bound.
func (w *walker) tooDeep(dir string, max int) {
	if !w.deep {
		w.deep = true
		w.warn(w.root.Path, fmt.Sprintf("%s has folders deeper than %d levels (%s); what they hold is not served", w.root.Path, max, dir))
	}
}

// readDir lists dir (spelled under the root) sorted by name, following
// symlinks that stay inside the bound; an entry that leads outside is a
// warning. Broken links and entries that cannot be stat'ed are skipped,
// as the reference does. Past the entry budget nothing more is listed.
func (w *walker) readDir(dir string) []entry {
	if w.left <= 0 {
		return nil
	}
	es, outside, err := w.bound.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fsbound.ErrOutside) {
			w.warnOutside(dir)
		}
		return nil
	}
	for _, p := range outside {
		w.warnOutside(p)
	}
	var out []entry
	for _, e := range es {
		if w.left <= 0 {
			if !w.capped {
				w.capped = true
				w.warn(w.root.Path, fmt.Sprintf("%s holds more than %d entries; the rest (from %s on) is not served", w.root.Path, w.max, e.Path))
			}
			break
		}
		w.left--
		out = append(out, entry{name: e.Name, path: e.Path, real: e.Real, info: e.Info})
	}
	return out
}
