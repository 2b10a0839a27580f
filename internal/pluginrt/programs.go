package pluginrt

import (
	"fmt"

	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// hostVars are the variables the host sets for every program of a
// package (hookrun and mcphost add them); the FULL TRUST block names only
// what the package itself adds.
var hostVars = []string{
	"REASONIX_PLUGIN_ROOT", "REASONIX_PLUGIN_NAME", "REASONIX_PLUGIN_VERSION",
	"REASONIX_HOME", "REASONIX_WORKSPACE_ROOT", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR",
}

// Programs lists every program package p runs besides its runtime, in the
// order a session meets them: its hook commands (exec, shell and legacy
// forms, in firing order; a context hook reads a file and starts nothing)
// and its stdio MCP servers (http and sse servers start no program). They
// run with the user's environment, so the FULL TRUST block lists them
// all: for a Claude-format package it is the whole of what it runs.
// workspace is the CLAUDE_PROJECT_DIR substituted into MCP commands.
func Programs(p manifest.Package, workspace string) []manifest.Program {
	var out []manifest.Program
	runner, _ := hookrun.Load(hookrun.Sources{Workspace: workspace, Packages: []manifest.Package{p}, Env: []string{}})
	for _, h := range runner.Listing() {
		if h.Plugin != p.Name || h.Form == hookrun.FormContext {
			continue
		}
		match := h.Match
		if match == "" {
			match = "*"
		}
		prog := manifest.Program{
			Kind:    manifest.ProgramHook,
			Label:   fmt.Sprintf("%s match=%s", h.Event, match),
			Command: h.Command,
			Args:    append([]string{}, h.Args...),
			Shell:   h.Form != hookrun.FormExec,
			Env:     manifest.EnvVarsOf(h.Env, hostVars...),
		}
		out = append(out, prog)
	}
	runner.Close()
	servers, _ := mcphost.PackageServers(p, workspace)
	for _, s := range servers {
		if s.Transport() != mcphost.TypeStdio {
			continue
		}
		out = append(out, manifest.Program{
			Kind:    manifest.ProgramMCP,
			Label:   fmt.Sprintf("%s [%s]", s.Name, mcphost.TypeStdio),
			Command: s.Command,
			Args:    append([]string{}, s.Args...),
			Env:     manifest.EnvVarsOf(s.Env, hostVars...),
		})
	}
	return out
}
