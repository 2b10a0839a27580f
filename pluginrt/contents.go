package pluginrt

import (
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/hookrun"
	"github.com/rx-bridge/rx-bridge/manifest"
	"github.com/rx-bridge/rx-bridge/mcphost"
	"github.com/rx-bridge/rx-bridge/plugincontent"
	"github.com/rx-bridge/rx-bridge/redact"
)

// MCPCacheDir is where, under the bridge home, the MCP servers' tool
// schemas are cached between sessions (so servers start lazily).
const MCPCacheDir = "cache/mcp"

// Contents are the contributions of a generation's enabled packages
// beside their runtimes: commands, prompts, skills and agents; hooks; MCP
// servers (the package's and the user's config.toml [mcp_servers]). Each
// generation has its own, built with it and closed when it retires, so a
// reload picks changed contributions up exactly like runtimes.
type Contents struct {
	Markdown *plugincontent.Set
	Hooks    *hookrun.Runner
	MCP      *mcphost.Host
}

// close ends every hook still running and every MCP server.
func (c *Contents) close() {
	if c == nil {
		return
	}
	c.Hooks.Close()
	_ = c.MCP.Close()
}

// loadContents builds the contributions of home's enabled packages. What
// cannot be served becomes a warning naming the plugin, never an error:
// a broken contribution leaves the rest of the runtime running.
func (s *Set) loadContents(home *manifest.Home) (*Contents, []string) {
	var (
		warns    []string
		mdPkgs   []plugincontent.Package
		hookPkgs []hookrun.Package
		servers  []mcphost.Server
	)
	for _, r := range home.Records() {
		if !home.Enabled(r) {
			continue
		}
		m, err := manifest.Load(r.Dir())
		if err != nil {
			continue // PluginsFromHome already warned about it
		}
		version := r.Version
		if version == "" {
			version = m.Version
		}
		mdPkgs = append(mdPkgs, plugincontent.Package{Name: r.Name, Dir: r.Dir(), Manifest: m})
		hookPkgs = append(hookPkgs, hookrun.Package{Name: r.Name, Root: r.Dir(), Version: version, Manifest: m})
		ps, w := mcphost.PackageServers(mcphost.Package{Name: r.Name, Root: r.Dir(), Version: version, Workspace: s.opts.Workspace, Manifest: m})
		servers = append(servers, ps...)
		warns = append(warns, w...)
	}
	reasonix, err := home.Config.ReasonixDir()
	if err != nil {
		warns = append(warns, err.Error())
	}
	roots, rw := plugincontent.Roots(mdPkgs, plugincontent.Places{Workspace: s.opts.Workspace, UserHome: s.opts.UserHome, ReasonixHome: reasonix})
	md, lw := plugincontent.Load(roots, plugincontent.Options{})
	for _, w := range append(rw, lw...) {
		warns = append(warns, w.String())
	}
	var global []string
	if reasonix != "" {
		global = append(global, filepath.Join(reasonix, "settings.json"))
	}
	global = append(global, filepath.Join(home.Dir, "settings.json"))
	hooks, hw := hookrun.Load(hookrun.Sources{Workspace: s.opts.Workspace, Home: home.Dir, Packages: hookPkgs, ProjectSettings: s.opts.ProjectHooks, GlobalSettings: global})
	for _, w := range hw {
		warns = append(warns, w.String())
	}
	user, err := mcphost.UserServers(home.Config)
	if err != nil {
		warns = append(warns, err.Error())
	}
	merged, mw := mcphost.Merge(user, servers)
	warns = append(warns, mw...)
	mcp := mcphost.New(merged, mcphost.Options{
		Workspace: s.opts.Workspace,
		CacheDir:  filepath.Join(home.Dir, filepath.FromSlash(MCPCacheDir)),
		OnNotice:  s.opts.MCPNotice,
	})
	for i := range warns {
		warns[i] = redact.String(warns[i])
	}
	return &Contents{Markdown: md, Hooks: hooks, MCP: mcp}, warns
}

// withSkillIndex is the host's system prompt with the skills index of md
// appended once (PLUGIN_CONTENTS §4.4), before system_prompt.build runs,
// so a system_prompt owner sees and shapes the prompt turns will send.
// The index depends only on the skills' names and descriptions, so a
// reload that changes neither keeps the prompt byte for byte (and the
// build skips system_prompt.build). A host without a prompt of its own
// gets no index: the agent's default prompt stands in for an empty one.
func withSkillIndex(prompt string, md *plugincontent.Set) string {
	if prompt == "" || md == nil {
		return prompt
	}
	if idx := md.SkillIndex(); idx != "" {
		return prompt + "\n\n" + idx
	}
	return prompt
}
