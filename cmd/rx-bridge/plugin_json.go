package main

import (
	"encoding/json"
	"io"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// The --json shapes of the plugin commands, documented in docs/CLI.md.
// Lists are always arrays (never null) so consumers need no nil checks.

// pluginJSON is one installed plugin in list, show and doctor output.
type pluginJSON struct {
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	// State is enabled, disabled (by its record) or disabled-by-config.
	State string `json:"state"`
	// Enabled is whether the plugin may run (State == "enabled").
	Enabled bool `json:"enabled"`
	// Install is copy, link, or reasonix (read from the Reasonix home).
	Install string `json:"install"`
	Root    string `json:"root"`
	Source  string `json:"source,omitempty"`
	// Commit is the commit a plugin installed from a git source is of.
	Commit       string `json:"commit,omitempty"`
	Home         string `json:"home"`
	ManifestKind string `json:"manifestKind,omitempty"`
	// Runtime is none, full-trust, ignored (legacy manifest) or unknown
	// (the manifest does not load; Error says why).
	Runtime string `json:"runtime"`
	Error   string `json:"error,omitempty"`
}

type listJSON struct {
	Home     string           `json:"home"`
	Plugins  []listPluginJSON `json:"plugins"`
	Warnings []string         `json:"warnings"`
}

// listPluginJSON is a plugin in list: the record, plus its runtime in
// every bridge of the home running now.
type listPluginJSON struct {
	pluginJSON
	Live []liveJSON `json:"live"`
}

// liveJSON is a plugin's runtime in one running bridge (an editor), from
// the status it keeps in the home (manifest.StatusDir).
type liveJSON struct {
	PID       int    `json:"pid"`
	Workspace string `json:"workspace"`
	manifest.PluginStatus
}

type showJSON struct {
	pluginJSON
	Manifest *manifestJSON `json:"manifest,omitempty"`
	// Contents are what the plugin serves beside its runtime, in
	// rx/plugins' shape.
	Contents *rxproto.PluginContents `json:"contents,omitempty"`
	// Programs are the programs it runs besides its runtime (hook
	// commands, stdio MCP servers): the rest of its FULL TRUST block.
	Programs []manifest.Program `json:"programs,omitempty"`
}

type manifestJSON struct {
	Kind        string `json:"kind"`
	File        string `json:"file"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Legacy      bool   `json:"legacy"`
	Name        string `json:"name"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"`
	Homepage    string `json:"homepage,omitempty"`
	Repository  string `json:"repository,omitempty"`
	// Contributes lists declared paths (globs unexpanded) plus the theme
	// ids found on disk.
	Contributes contributesJSON `json:"contributes"`
	Runtime     *runtimeJSON    `json:"runtime,omitempty"`
	// IgnoredRuntime is set when a legacy manifest declares a runtime that
	// can never start.
	IgnoredRuntime bool     `json:"ignoredRuntime,omitempty"`
	Warnings       []string `json:"warnings"`
}

type contributesJSON struct {
	Skills   []string `json:"skills"`
	Agents   []string `json:"agents"`
	Commands []string `json:"commands"`
	Prompts  []string `json:"prompts"`
	Themes   []string `json:"themes"`
	ThemeIDs []string `json:"themeIds"`
	// Hooks counts the hook entries per event.
	Hooks      map[string]int `json:"hooks"`
	MCPServers []string       `json:"mcpServers"`
}

type runtimeJSON struct {
	Command string `json:"command"`
	// ExpandedCommand is the program that will run; CommandError says why
	// there is none.
	ExpandedCommand string   `json:"expandedCommand,omitempty"`
	CommandError    string   `json:"commandError,omitempty"`
	Args            []string `json:"args"`
	// Env names the variables and their value lengths, never the values
	// (see manifest.EnvVar).
	Env           []manifest.EnvVar `json:"env"`
	Required      bool              `json:"required"`
	Priority      int               `json:"priority"`
	Intercepts    []string          `json:"intercepts"`
	Replaces      []string          `json:"replaces"`
	Capabilities  []string          `json:"capabilities"`
	TimeoutMillis int64             `json:"timeoutMillis"`
	// Risk is the FULL TRUST sentence, for clients that render the block.
	Risk string `json:"risk"`
}

type doctorJSON struct {
	Home     string             `json:"home"`
	OK       bool               `json:"ok"`
	Warnings []string           `json:"warnings"`
	Plugins  []doctorPluginJSON `json:"plugins"`
	// Strays are what is in the home but installed as nothing; only a
	// doctor of every plugin looks for them.
	Strays []strayJSON `json:"strays"`
}

type strayJSON struct {
	Path string `json:"path"`
	manifest.Check
}

type doctorPluginJSON struct {
	pluginJSON
	OK      bool             `json:"ok"`
	Checks  []manifest.Check `json:"checks"`
	Trust   *runtimeJSON     `json:"fullTrust,omitempty"`
	Ignored bool             `json:"ignoredRuntime,omitempty"`
	// Start is the live runtime check; absent with --static or when the
	// static checks failed.
	Start *startJSON `json:"start,omitempty"`
	// Contents are what the plugin serves beside its runtime; MCP is the
	// start of each of its MCP servers (absent with --static).
	Contents *rxproto.PluginContents `json:"contents,omitempty"`
	MCP      []mcpCheckJSON          `json:"mcp,omitempty"`
	// Programs are the programs it runs besides its runtime, as in show.
	Programs []manifest.Program `json:"programs,omitempty"`
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func describePlugin(h *manifest.Home, r manifest.Record, m *manifest.Manifest, err error) pluginJSON {
	p := pluginJSON{
		Name:         r.Name,
		Version:      r.Version,
		Description:  r.Description,
		State:        stateOf(h, r),
		Enabled:      h.Enabled(r),
		Install:      installKind(h, r),
		Root:         r.Dir(),
		Source:       r.Source,
		Commit:       r.Commit,
		Home:         r.Home,
		ManifestKind: string(r.ManifestKind),
		Runtime:      runtimeKind(m, err),
	}
	if err != nil {
		p.Error = err.Error()
	}
	return p
}

func describeManifest(m *manifest.Manifest, name, root string) *manifestJSON {
	res := m.Resources
	out := &manifestJSON{
		Kind:        string(m.Kind),
		File:        m.Kind.File(),
		APIVersion:  m.APIVersion,
		Legacy:      m.Legacy(),
		Name:        m.Name,
		Version:     m.Version,
		Description: m.Description,
		Homepage:    m.Homepage,
		Repository:  m.Repository,
		Contributes: contributesJSON{
			Skills:     nonNil(res.Skills),
			Agents:     nonNil(res.Agents),
			Commands:   nonNil(res.Commands),
			Prompts:    nonNil(res.Prompts),
			Themes:     nonNil(res.Themes),
			ThemeIDs:   []string{},
			Hooks:      map[string]int{},
			MCPServers: nonNil(sortedKeys(res.MCPServers)),
		},
		IgnoredRuntime: m.IgnoredRuntime,
		Warnings:       problemStrings(m.Warnings),
	}
	for _, f := range m.ThemeFiles {
		out.Contributes.ThemeIDs = append(out.Contributes.ThemeIDs, manifest.ThemeID(name, f))
	}
	for ev, hs := range res.Hooks {
		out.Contributes.Hooks[ev] = len(hs)
	}
	if m.Runtime != nil {
		out.Runtime = describeRuntime(m.Runtime, root)
	}
	return out
}

func describeRuntime(rt *manifest.Runtime, root string) *runtimeJSON {
	out := &runtimeJSON{
		Command:       rt.Command,
		Args:          nonNil(rt.Args),
		Env:           rt.EnvVars(),
		Required:      rt.Required,
		Priority:      rt.Priority,
		TimeoutMillis: rt.TimeoutMillis,
		Risk:          manifest.TrustRisk,
	}
	if cmd, err := rt.ExpandedCommand(root); err != nil {
		out.CommandError = err.Error()
	} else {
		out.ExpandedCommand = cmd
	}
	out.Intercepts, out.Replaces, out.Capabilities = rt.Declared()
	return out
}

func problemStrings(ps []manifest.Problem) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.String())
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
