// Package fsbound owns the workspace boundary: the one rule of what a path
// may reach when a file is read on behalf of a root. A root is a directory
// whose files are served to the model or the user — the workspace, a
// user's or project's convention folder (.claude/commands, ~/.reasonix/skills,
// …), a plugin's root. A path read on behalf of a root must resolve, every
// symlink followed (filepath.EvalSymlinks), inside that root's real path;
// a path that leads outside, by "..", by being absolute elsewhere or
// through a symlink, is refused with an error wrapping ErrOutside.
//
// Every reader goes through it: the agent's file tools (read_file,
// list_files, search_text, apply_edit, run_command's cwd, through
// agent/tools.Workspace) and the loading of commands, skills (SKILL.md and
// its reference files and scripts) and agents (plugincontent). It imports
// nothing of this module, so any layer may use it.
//
// Comparisons are by path prefix on whole path elements; on Windows they
// ignore case (drive letters, \ separators and an NTFS folder's case are
// the same file).
package fsbound

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// ErrOutside is wrapped by every refusal of a path outside its root.
var ErrOutside = errors.New("outside the root")

// OutsideError is a refusal: the path as it was asked for leads outside
// the root (its description, "the workspace", "/home/u/.claude", …).
type OutsideError struct {
	Path string
	Root string
	// Link is set when the path is lexically inside but a symlink leads
	// it out.
	Link bool
}

func (e *OutsideError) Error() string {
	if e.Link {
		return fmt.Sprintf("path %q leads outside %s through a symlink", e.Path, e.Root)
	}
	return fmt.Sprintf("path %q is outside %s", e.Path, e.Root)
}

// Is makes errors.Is(err, ErrOutside) true.
func (e *OutsideError) Is(target error) bool { return target == ErrOutside }

// Root is a directory that paths are resolved against and confined to.
// It is immutable and safe for concurrent use.
type Root struct {
	name  string // how errors name it
	real  string // the directory with every symlink resolved
	given string // the directory as named (absolute, cleaned)
}

// New returns the root at dir, an existing directory (relative to the
// current directory when not absolute). name is how refusals name it;
// "" names it by its path.
func New(dir, name string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if name == "" {
		name = filepath.Clean(abs)
	}
	return &Root{name: name, real: real, given: filepath.Clean(abs)}, nil
}

// Real is the root's directory with every symlink resolved.
func (r *Root) Real() string { return r.real }

// Name is how refusals name the root.
func (r *Root) Name() string { return r.name }

// Resolve turns p (relative to the root, or absolute; "" is the root)
// into an absolute path inside the root's real path with every symlink
// of its existing part resolved. An absolute p spelled through the
// root's own symlinked path is inside. p need not exist, so a file can be
// created; its deepest existing ancestor must still resolve inside.
func (r *Root) Resolve(p string) (string, error) {
	if p == "" {
		p = "."
	}
	abs := filepath.Clean(p)
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(r.real, abs)
	} else if rel, ok := RelWithin(r.given, abs); ok && !Within(r.real, abs) {
		abs = filepath.Join(r.real, rel)
	}
	if !Within(r.real, abs) {
		return "", &OutsideError{Path: p, Root: r.name}
	}
	real, err := EvalExisting(abs)
	if err != nil {
		return "", fmt.Errorf("path %q: %w", p, err)
	}
	if !Within(r.real, real) {
		return "", &OutsideError{Path: p, Root: r.name, Link: true}
	}
	return real, nil
}

// Contains reports whether real (a path with its symlinks resolved) is
// the root or below it.
func (r *Root) Contains(real string) bool { return Within(r.real, real) }

// Open opens p for reading after Resolve accepts it, by its resolved
// path.
func (r *Root) Open(p string) (*os.File, string, error) {
	real, err := r.Resolve(p)
	if err != nil {
		return nil, "", err
	}
	f, err := os.Open(real)
	return f, real, err
}

// Entry is one entry of a directory listed by ReadDir, symlinks followed.
type Entry struct {
	// Name is the entry's name; Path the directory's path as given
	// joined with it (what is shown); Real its resolved path, inside the
	// root (what is read).
	Name, Path, Real string
	// Info describes what Real is (the symlink's target for a link).
	Info fs.FileInfo
}

// ReadDir lists dir (a path Resolve accepts) sorted by name, following
// symlinks that stay inside the root. An entry that leads outside the
// root is not listed: its Path is in outside, for the caller to warn
// about. A broken link, or an entry that cannot be stat'ed, is left out.
func (r *Root) ReadDir(dir string) (entries []Entry, outside []string, err error) {
	realDir, err := r.Resolve(dir)
	if err != nil {
		return nil, nil, err
	}
	des, err := os.ReadDir(realDir)
	if err != nil {
		return nil, nil, err
	}
	for _, de := range des {
		e := Entry{Name: de.Name(), Path: filepath.Join(dir, de.Name()), Real: filepath.Join(realDir, de.Name())}
		if t := de.Type(); t != 0 && t != fs.ModeDir {
			// A symlink, or on Windows a junction or other reparse
			// point: resolve it and keep it only inside.
			real, err := filepath.EvalSymlinks(e.Real)
			if err != nil {
				continue
			}
			if !Within(r.real, real) {
				outside = append(outside, e.Path)
				continue
			}
			e.Real = real
		}
		fi, err := os.Stat(e.Real)
		if err != nil {
			continue
		}
		e.Info = fi
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return entries, outside, nil
}

// maxLinks bounds the dangling links EvalExisting follows in one path
// (the kernel's ELOOP bound is 40).
const maxLinks = 40

// EvalExisting resolves the symlinks of the longest existing prefix of
// abs (a clean absolute path) and appends the rest, which does not exist.
// A dangling symlink on the way is resolved to where it points (a file
// created through it would land there), so a link to a file that does
// not exist yet is judged by its target.
func EvalExisting(abs string) (string, error) {
	return evalExisting(abs, 0)
}

func evalExisting(abs string, hops int) (string, error) {
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
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// cur exists but does not resolve: a dangling link.
			if hops >= maxLinks {
				return "", fmt.Errorf("%s: too many levels of symbolic links", abs)
			}
			target, err := os.Readlink(cur)
			if err != nil {
				return "", err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			real, err := evalExisting(filepath.Clean(target), hops+1)
			if err != nil {
				return "", err
			}
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
		cur = parent
	}
}

// Within reports whether p is root or below it, comparing whole path
// elements (both clean and absolute; no symlink is resolved).
func Within(root, p string) bool {
	_, ok := RelWithin(root, p)
	return ok
}

// RelWithin returns p relative to root ("." for root itself) when p is
// root or below it (both clean and absolute; no symlink is resolved).
func RelWithin(root, p string) (string, bool) {
	if samePath(p, root) {
		return ".", true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if len(p) <= len(prefix) || !samePath(p[:len(prefix)], prefix) {
		return "", false
	}
	return p[len(prefix):], true
}

// samePath compares two path strings as the OS does: ignoring case on
// Windows.
func samePath(a, b string) bool {
	if runtime.GOOS == "windows" {
		return strings.EqualFold(a, b)
	}
	return a == b
}
