package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Load finds the manifest of the plugin at root (reasonix-plugin.json, then
// .codex-plugin/plugin.json, then .claude-plugin/plugin.json), parses it,
// and checks on disk that every path it names stays inside root. A manifest
// that exists but is invalid is an error; only a missing one falls through
// to the next kind, so a broken native manifest is never silently replaced
// by a compatibility one.
func Load(root string) (*Manifest, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("plugin root %s: %w", root, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("plugin root %s: %w", abs, unwrapPath(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("plugin root %s is not a directory", abs)
	}
	realRoot, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("plugin root %s: %w", abs, unwrapPath(err))
	}
	for _, kind := range Kinds {
		file := filepath.Join(abs, filepath.FromSlash(kind.File()))
		data, err := readManifest(realRoot, file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		m, err := Parse(kind, data)
		if err != nil {
			var me *Error
			if errors.As(err, &me) {
				me.File = file
			}
			return nil, err
		}
		if err := m.checkDisk(abs, realRoot).err(file); err != nil {
			return nil, err
		}
		return m, nil
	}
	return nil, fmt.Errorf("no reasonix-plugin.json, .codex-plugin/plugin.json, or .claude-plugin/plugin.json found in %s", abs)
}

func readManifest(realRoot, file string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", file, unwrapPath(err))
	}
	if !within(realRoot, real) {
		return nil, fmt.Errorf("%s: the manifest escapes the plugin root through a symlink", file)
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, unwrapPath(err))
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: the manifest is not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, unwrapPath(err))
	}
	return data, nil
}

// unwrapPath drops the *PathError wrapper, whose path the caller already
// names, so messages do not repeat it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
