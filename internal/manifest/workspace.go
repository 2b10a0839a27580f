package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// WorkspaceFile is a workspace's own configuration, at its root.
const WorkspaceFile = ".rx-bridge.toml"

// Workspace is a workspace's .rx-bridge.toml. A repository is not trusted
// the way the user's home is, so it may tune presentation and the model
// only: nothing here can declare, enable or point at a runtime, and nothing
// can loosen tool approval or budgets.
type Workspace struct {
	// Model overrides the home's default model for sessions here.
	Model string `toml:"model"`
	// UI overrides the home's display preferences.
	UI UIConfig `toml:"ui"`
}

// runtimeKeys are words that, anywhere in a workspace key, mean someone is
// trying to make the project start code.
var runtimeKeys = map[string]bool{
	"plugins": true, "plugin": true, "runtime": true, "runtimes": true,
	"command": true, "args": true, "env": true, "enable": true, "enabled": true,
	"reasonix_home": true, "sidecar": true, "sidecars": true,
	"extension": true, "extensions": true,
}

// homeOnlyKeys are settings only the user's own config.toml may make.
var homeOnlyKeys = map[string]bool{"tool_approval": true, "step_budget": true, "timeouts": true, "hooks": true}

// LoadWorkspace reads <root>/.rx-bridge.toml; a missing file is an empty
// Workspace. Any key that would declare or enable a runtime is refused with
// an explanation, not ignored, so the author learns it will never work.
func LoadWorkspace(root string) (*Workspace, error) {
	path := filepath.Join(root, WorkspaceFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Workspace{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	return parseWorkspace(path, data)
}

// WorkspaceModel is the model <root>/.rx-bridge.toml names ("" for none):
// the agent's per-workspace default, shaped for agent.Options.
func WorkspaceModel(root string) (string, error) {
	w, err := LoadWorkspace(root)
	if err != nil {
		return "", err
	}
	return w.Model, nil
}

// parseWorkspace decodes a workspace file's content; path names it in
// errors. The content comes from a repository, so it is fuzzed.
func parseWorkspace(path string, data []byte) (*Workspace, error) {
	w := &Workspace{}
	_, ps := decodeTOML(string(data), w, workspaceUnknown)
	if len(ps) == 0 && w.Model != "" {
		if err := extproto.ValidateProviderRef(w.Model); err != nil {
			ps = append(ps, Problem{Path: "model", Msg: err.Error(), Line: keyLine(string(data), toml.Key{"model"})})
		}
	}
	if err := ps.err(path); err != nil {
		return nil, err
	}
	return w, nil
}

func workspaceUnknown(k toml.Key) (toml.Key, string) {
	for i, part := range k {
		if runtimeKeys[part] {
			return k[:i+1], "project configuration can never declare or enable a plugin runtime; only plugins installed with \"rx-bridge plugin install\" (recorded in the rx-bridge home) can run"
		}
	}
	if homeOnlyKeys[k[0]] {
		return k[:1], "only the rx-bridge home's config.toml can set this; a workspace may set model and [ui] only"
	}
	at, msg := firstUnknown(k, func(level toml.Key) []string {
		switch {
		case len(level) == 1:
			return []string{"model", "ui"}
		case len(level) == 2 && level[0] == "ui":
			return uiKeys
		}
		return []string{}
	})
	if at == nil {
		return nil, ""
	}
	return at, msg + "; a workspace may set model and [ui] only"
}
