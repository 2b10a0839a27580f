package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// errStop ends a walk early without an error.
var errStop = errors.New("stop walking")

// walkFunc sees one entry: rel is its slash path as the tools show it
// (Workspace.Rel): relative to the primary root, absolute in another.
// Returning errStop ends the walk; any other error aborts it.
type walkFunc func(rel string, d fs.DirEntry) error

// walk visits the entries below start (an absolute directory inside the
// workspace) in lexical order, skipping .git and everything a .gitignore
// in force ignores; an ignored directory is not entered, so nothing
// inside it can be re-included, as in git. Symlinks are reported but
// never followed. Without recursive it visits start's children only.
//
// The .gitignore files in force are those of the root that holds start.
func (w *Workspace) walk(ctx context.Context, start string, recursive bool, fn walkFunc) error {
	r := w.rootOf(start)
	startRel, err := filepath.Rel(r.Root, start)
	if err != nil {
		return err
	}
	startRel = filepath.ToSlash(startRel)
	if startRel == "." {
		startRel = ""
	}
	if r.shown != "" {
		inner := fn
		fn = func(rel string, d fs.DirEntry) error { return inner(path.Join(r.shown, rel), d) }
	}
	stack := r.ignoresAbove(startRel)
	err = r.walkDir(ctx, startRel, stack, recursive, fn)
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// ignoresAbove loads the exclude file and the .gitignore of the root and
// of every directory from the root down to rel.
func (w *Workspace) ignoresAbove(rel string) ignoreStack {
	var stack ignoreStack
	if data, err := os.ReadFile(filepath.Join(w.Root, ".git", "info", "exclude")); err == nil {
		stack = append(stack, parseIgnore("", data))
	}
	dir := ""
	stack = w.pushIgnore(stack, dir)
	if rel == "" {
		return stack
	}
	for _, part := range strings.Split(rel, "/") {
		dir = path.Join(dir, part)
		stack = w.pushIgnore(stack, dir)
	}
	return stack
}

func (w *Workspace) pushIgnore(stack ignoreStack, dir string) ignoreStack {
	data, err := os.ReadFile(filepath.Join(w.Root, filepath.FromSlash(dir), ".gitignore"))
	if err != nil {
		return stack
	}
	return append(stack[:len(stack):len(stack)], parseIgnore(dir, data))
}

func (w *Workspace) walkDir(ctx context.Context, dir string, stack ignoreStack, recursive bool, fn walkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(w.Root, filepath.FromSlash(dir)))
	if err != nil {
		return err
	}
	for _, d := range entries {
		rel := path.Join(dir, d.Name())
		isDir := d.IsDir()
		if isDir && d.Name() == ".git" {
			continue
		}
		if stack.ignored(rel, isDir) {
			continue
		}
		if err := fn(rel, d); err != nil {
			return err
		}
		if isDir && recursive {
			err := w.walkDir(ctx, rel, w.pushIgnore(stack, rel), true, fn)
			// A subdirectory that cannot be read is left out rather
			// than failing the whole walk.
			if err != nil && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
