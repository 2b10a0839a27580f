package pluginrt

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// MCPCacheDir is where, under the bridge home, the MCP servers' tool
// schemas are cached between sessions (so servers start lazily).
const MCPCacheDir = "cache/mcp"

// MCPAuthDir is where, under the bridge home, the MCP servers' OAuth
// tokens are kept (mcphost Client.TokenDir).
const MCPAuthDir = "auth/mcp"

// Contents are the contributions of a generation's enabled packages
// beside their runtimes: commands, prompts, skills and agents; hooks; MCP
// servers (the package's and the user's config.toml [mcp_servers]). Each
// generation has its own, built with it and closed when it retires, so a
// reload picks changed contributions up exactly like runtimes.
type Contents struct {
	Markdown *plugincontent.Set
	Hooks    *hookrun.Runner
	MCP      *mcphost.Host
	// Memory is the project and user memory block (CLAUDE.md, AGENTS.md,
	// ~/.claude/CLAUDE.md; plugincontent.Memory), read once per build;
	// "" for a package's own contents.
	Memory string

	// warns are the build's warnings by the plugin they name ("" for the
	// user's and project's own files and config).
	warns map[string][]string
}

// Close ends every hook still running and every MCP server. A generation's
// Contents are closed when it retires; whoever built Contents with
// LoadPackage closes them.
func (c *Contents) Close() {
	if c == nil {
		return
	}
	c.Hooks.Close()
	_ = c.MCP.Close()
}

// contentsOptions say what a build of Contents reads beside the packages.
type contentsOptions struct {
	Workspace string
	// Folders are the workspace's other roots: project roots of
	// commands, skills and memory after Workspace, and MCP roots.
	Folders []string
	// UserHome, ReasonixHome, ProjectHooks and Settings add the user's
	// and project's own commands, skills and hooks; User adds the
	// config.toml [mcp_servers]. LoadPackage leaves them all out.
	UserHome     string
	ReasonixHome bool
	ProjectHooks bool
	Settings     bool
	User         bool
	// Idle starts no MCP server: every server waits for Connect.
	Idle      bool
	CacheDir  string
	MCPNotice func(mcphost.Notice)
	MCPClient mcphost.Client
}

// loadContents builds the contributions of home's enabled packages. What
// cannot be served becomes a warning naming the plugin, never an error:
// a broken contribution leaves the rest of the runtime running.
func (s *Set) loadContents(home *manifest.Home) (*Contents, []string) {
	var recs []manifest.Record
	for _, r := range home.Records() {
		if home.Enabled(r) {
			recs = append(recs, r)
		}
	}
	return buildContents(home, recs, contentsOptions{
		Workspace:    s.opts.Workspace,
		Folders:      s.Folders(),
		UserHome:     s.opts.UserHome,
		ReasonixHome: true,
		ProjectHooks: s.opts.ProjectHooks || home.Config.Hooks.Project,
		Settings:     true,
		User:         true,
		CacheDir:     filepath.Join(home.Dir, filepath.FromSlash(MCPCacheDir)),
		MCPNotice:    s.opts.MCPNotice,
		MCPClient:    s.mcpClient(home),
	})
}

// mcpClient is the MCP client's editor side, its tokens under home.
func (s *Set) mcpClient(home *manifest.Home) mcphost.Client {
	c := s.opts.MCPClient
	if c.OpenURL != nil && c.TokenDir == "" {
		c.TokenDir = filepath.Join(home.Dir, filepath.FromSlash(MCPAuthDir))
	}
	return c
}

// LoadPackage builds the contributions of the one installed package r
// alone, as plugin show and doctor describe them: nothing of the user's
// or the project's, and no MCP server started (Contents.MCP.Connect
// starts one). A manifest that does not load gives empty Contents and
// its error as the only warning. The caller closes the result.
//
// client is the MCP client's editor side for the servers Connect starts
// (plugin doctor prints an OAuth page's URL); its TokenDir defaults to
// the home's, so tokens an editor session stored serve here too.
func LoadPackage(home *manifest.Home, r manifest.Record, workspace string, client mcphost.Client) (*Contents, []string) {
	if client.OpenURL != nil && client.TokenDir == "" {
		client.TokenDir = filepath.Join(home.Dir, filepath.FromSlash(MCPAuthDir))
	}
	return buildContents(home, []manifest.Record{r}, contentsOptions{Workspace: workspace, Idle: true, MCPClient: client})
}

func buildContents(home *manifest.Home, recs []manifest.Record, o contentsOptions) (*Contents, []string) {
	var (
		warns   []string
		owners  []string // the plugin each warning names, in parallel
		pkgs    []manifest.Package
		servers []mcphost.Server
	)
	warn := func(plugin, text string) {
		warns = append(warns, text)
		owners = append(owners, plugin)
	}
	names := map[string]bool{}
	for _, r := range recs {
		m, err := manifest.Load(r.Dir())
		if err != nil {
			if len(recs) == 1 {
				warn(r.Name, r.Name+": "+err.Error())
			}
			continue // else PluginsFromHome already warned about it
		}
		names[r.Name] = true
		p := manifest.PackageOf(r, m)
		pkgs = append(pkgs, p)
		ps, w := mcphost.PackageServers(p, o.Workspace)
		servers = append(servers, ps...)
		for _, t := range w {
			warn(r.Name, t)
		}
	}
	places := plugincontent.Places{Workspace: o.Workspace, Folders: o.Folders, UserHome: o.UserHome}
	var global []string
	if o.ReasonixHome {
		reasonix, err := home.Config.ReasonixDir()
		if err != nil {
			warn("", err.Error())
		}
		places.ReasonixHome = reasonix
		if reasonix != "" {
			global = append(global, filepath.Join(reasonix, "settings.json"))
		}
	}
	if !o.Settings {
		places.Workspace, places.Folders = "", nil // the project's own directories are not the package's
	}
	roots, rw := plugincontent.Roots(pkgs, places)
	md, lw := plugincontent.Load(roots, plugincontent.Options{})
	for _, w := range append(rw, lw...) {
		warn(w.Plugin, w.String())
	}
	var memory string
	if o.Settings {
		var mw []plugincontent.Warning
		memory, mw = plugincontent.Memory(plugincontent.Places{Workspace: places.Workspace, Folders: places.Folders, UserHome: places.UserHome})
		for _, w := range mw {
			warn("", w.String())
		}
	}
	src := hookrun.Sources{Workspace: o.Workspace, Home: home.Dir, Packages: pkgs, ProjectSettings: o.ProjectHooks}
	if o.Settings {
		src.GlobalSettings = append(global, filepath.Join(home.Dir, "settings.json"))
	}
	hooks, hw := hookrun.Load(src)
	for _, w := range hw {
		if w.Plugin == "" && !o.Settings {
			continue // the project's settings file is not the package's
		}
		warn(w.Plugin, w.String())
	}
	var user []mcphost.Server
	if o.User {
		var err error
		if user, err = mcphost.UserServers(home.Config); err != nil {
			warn("", err.Error())
		}
	}
	merged, mw := mcphost.Merge(user, servers)
	for _, t := range mw {
		warn(ownerOf(t, names), t)
	}
	if o.Idle {
		for i := range merged {
			merged[i].AutoStart = false
		}
	}
	client := o.MCPClient
	if len(o.Folders) > 0 && len(client.Roots) == 0 {
		// Every folder of the workspace is a root, the primary first.
		client.Roots = append([]string{o.Workspace}, o.Folders...)
	}
	mcp := mcphost.New(merged, mcphost.Options{Workspace: o.Workspace, CacheDir: o.CacheDir, OnNotice: o.MCPNotice, Client: client})
	c := &Contents{Markdown: md, Hooks: hooks, MCP: mcp, Memory: memory, warns: map[string][]string{}}
	for i := range warns {
		warns[i] = redact.String(warns[i])
		c.warns[owners[i]] = append(c.warns[owners[i]], warns[i])
	}
	return c, warns
}

// ownerOf is the plugin a "<plugin>: …" warning names, if it is one of
// names.
func ownerOf(text string, names map[string]bool) string {
	if p, _, ok := strings.Cut(text, ": "); ok && names[p] {
		return p
	}
	return ""
}

// PackageContents is what one package contributes beside its runtime, as
// it is served: for plugin show, doctor and rx/plugins.
type PackageContents struct {
	// Commands are its visible commands and prompts (Kind says which),
	// by name.
	Commands []plugincontent.Command
	// Skills are its skills, Agents its agents, by slash name.
	Skills []plugincontent.Skill
	Agents []plugincontent.Skill
	// Hooks are its hooks in firing order.
	Hooks []hookrun.Hook
	// MCP are its MCP servers as they are now.
	MCP []mcphost.Status
	// Warnings say what of it could not be served, and why (redacted).
	Warnings []string
}

// Package is what the plugin with this installed name contributes in c
// (nil-safe: nothing).
func (c *Contents) Package(name string) PackageContents {
	var out PackageContents
	if c == nil || name == "" {
		return out
	}
	if c.Markdown != nil {
		for _, cmd := range c.Markdown.Commands() {
			if cmd.Plugin == name {
				out.Commands = append(out.Commands, cmd)
			}
		}
		for _, sk := range c.Markdown.SlashSkills() {
			switch {
			case sk.Plugin != name:
			case sk.Agent:
				out.Agents = append(out.Agents, sk)
			default:
				out.Skills = append(out.Skills, sk)
			}
		}
	}
	if c.Hooks != nil {
		for _, h := range c.Hooks.Listing() {
			if h.Plugin == name {
				out.Hooks = append(out.Hooks, h)
			}
		}
	}
	if c.MCP != nil {
		for _, st := range c.MCP.Status() {
			if st.Source == mcphost.SourcePackage && st.Owner == name {
				out.MCP = append(out.MCP, st)
			}
		}
	}
	out.Warnings = append(out.Warnings, c.warns[name]...)
	sort.SliceStable(out.Commands, func(i, j int) bool { return out.Commands[i].Name < out.Commands[j].Name })
	return out
}

// withSkillIndex is the host's system prompt with the memory block (the
// project's and user's CLAUDE.md and AGENTS.md) and the skills index of
// md appended once (PLUGIN_CONTENTS §4.4), before system_prompt.build
// runs, so a system_prompt owner sees and shapes the prompt turns will
// send. Both depend only on the files and on the skills' names and
// descriptions, so a reload that changes none keeps the prompt byte for
// byte (and the build skips system_prompt.build). A host without a prompt
// of its own gets neither: the agent's default prompt stands in for an
// empty one.
func withSkillIndex(prompt, memory string, md *plugincontent.Set) string {
	if prompt == "" {
		return prompt
	}
	if memory != "" {
		prompt += "\n\n" + memory
	}
	if md == nil {
		return prompt
	}
	if idx := md.SkillIndex(); idx != "" {
		return prompt + "\n\n" + idx
	}
	return prompt
}
