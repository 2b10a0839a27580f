package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	if m, ok, err := inferClaude(abs, realRoot); ok || err != nil {
		return m, err
	}
	return nil, fmt.Errorf("no reasonix-plugin.json, .codex-plugin/plugin.json, or .claude-plugin/plugin.json found in %s, and none of Claude Code's plugin folders (%s) to read one from", abs, strings.Join(ClaudeLayout, ", "))
}

// ClaudeLayout are the folders and files Claude Code reads a plugin from
// by convention; a folder holding any of them is a Claude Code plugin
// even without .claude-plugin/plugin.json.
var ClaudeLayout = []string{"commands/", "agents/", "skills/", "hooks/hooks.json", ".mcp.json"}

// InferredLayout is Manifest.Inferred for a package read from its folder
// layout.
const InferredLayout = "the folder layout (Claude Code: no .claude-plugin/plugin.json)"

// inferClaude reads a Claude Code plugin that has no plugin.json from its
// layout, as Claude Code does: the name is the folder's, the contents
// are its convention folders. ok is false when the folder has none of
// them.
func inferClaude(abs, realRoot string) (*Manifest, bool, error) {
	found := false
	for _, l := range ClaudeLayout {
		fi, err := os.Stat(filepath.Join(abs, filepath.FromSlash(strings.TrimSuffix(l, "/"))))
		if err == nil && fi.IsDir() == strings.HasSuffix(l, "/") {
			found = true
			break
		}
	}
	if !found {
		return nil, false, nil
	}
	name := filepath.Base(abs)
	if err := ValidateName(name); err != nil {
		return nil, true, fmt.Errorf("%s has no plugin.json, so its name is its folder's, but %v (rename the folder, or add .claude-plugin/plugin.json with a \"name\")", abs, err)
	}
	m, err := LoadSynthesized(abs, realRoot, InferredLayout, map[string]any{"name": name})
	return m, true, err
}

// LoadSynthesized loads the plugin at root with the Claude plugin.json
// fields given (a marketplace entry's, or an inferred name) standing for
// the manifest it lacks; from says where they came from.
func LoadSynthesized(root, realRoot, from string, fields map[string]any) (*Manifest, error) {
	data, err := json.Marshal(fields)
	if err != nil {
		return nil, err
	}
	m, err := Parse(KindClaude, data)
	if err != nil {
		var me *Error
		if errors.As(err, &me) {
			me.File = from
		}
		return nil, err
	}
	if realRoot == "" {
		if realRoot, err = filepath.EvalSymlinks(root); err != nil {
			return nil, fmt.Errorf("plugin root %s: %w", root, unwrapPath(err))
		}
	}
	if err := m.checkDisk(root, realRoot).err(from); err != nil {
		return nil, err
	}
	m.Inferred, m.Synthesized = from, data
	return m, nil
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
