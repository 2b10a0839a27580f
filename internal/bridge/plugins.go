package bridge

import (
	"context"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The states of a plugin's runtime in rx/plugins.
const (
	stateRunning    = rxproto.PluginStateRunning
	stateCrashed    = rxproto.PluginStateCrashed
	stateFailed     = rxproto.PluginStateFailedToStart
	stateDisabled   = rxproto.PluginStateDisabled
	stateNotStarted = rxproto.PluginStateNotStarted
	stateNoRuntime  = rxproto.PluginStateNoRuntime
)

// reloadHint is how a stopped runtime comes back.
const reloadHint = "reload the plugins (rx.reload) to start a fresh sidecar"

// crashRecover is what brings a crashed plugin back.
func crashRecover(plugin string) string {
	return reloadHint + "; rx-bridge plugin doctor " + plugin + " checks it meanwhile"
}

// plugins serves rx/plugins from the install records as they are now.
func (s *Server) plugins(context.Context, []byte) (any, error) {
	out, err := s.pluginEntries()
	if err != nil {
		return nil, err
	}
	return rxproto.PluginsResult{Plugins: out}, nil
}

// pluginEntries describes every installed plugin and its runtime now.
func (s *Server) pluginEntries() ([]rxproto.PluginInfo, error) {
	home, err := manifest.LoadHome(s.opts.Home)
	if err != nil {
		return nil, err
	}
	snap := s.rt.set.Current()
	g := snap.Gen
	failures := s.rt.set.Failures()
	out := []rxproto.PluginInfo{}
	for _, r := range home.Records() {
		p := &rxproto.PluginInfo{
			Name: r.Name, Version: r.Version, Description: r.Description, Enabled: home.Enabled(r),
			Source: r.Source, Root: r.Dir(), ManifestKind: string(r.ManifestKind),
		}
		m, loadErr := manifest.Load(r.Dir())
		p.Contents = PluginContents(snap.Contents.Package(r.Name), m, r.Name)
		if loadErr == nil {
			if m.Runtime != nil {
				p.Runtime = describeRuntime(m.Runtime, r.Dir())
			}
			// The block lists the runtime and every other program the
			// package runs (hook commands, stdio MCP servers).
			var b strings.Builder
			progs := pluginrt.Programs(manifest.PackageOf(r, m), s.opts.Workspace)
			if manifest.RenderTrust(&b, m.Runtime, r.Dir(), progs...) == nil {
				p.Trust = b.String()
			}
		}
		sc, inGen := g.Sidecar(r.Name)
		failure, failed := failures[r.Name]
		switch {
		case inGen:
			p.Generation = g.ID
			if crash, ok := sc.CrashInfo(); ok {
				setState(p, stateCrashed, redact.String(extproto.Plain(crash.Err)), crash.At, crashRecover(r.Name), crash.Stderr)
			} else {
				setState(p, stateRunning, "", sc.StartedAt, "", "")
			}
		case !p.Enabled:
			why, hint := "its install record disables it", "rx-bridge plugin enable "+r.Name+", then "+reloadHint
			if r.Enabled {
				why, hint = "config.toml disables it ([plugins."+r.Name+"] enabled = false)", "remove that setting, then "+reloadHint
			}
			setState(p, stateDisabled, why, time.Time{}, hint, "")
		case failed:
			setState(p, stateFailed, failure.Reason(), failure.At, "fix what rx-bridge plugin doctor "+r.Name+" reports, then "+reloadHint, failure.Stderr)
		case loadErr != nil:
			setState(p, stateFailed, redact.String(loadErr.Error()), time.Time{}, "fix what rx-bridge plugin doctor "+r.Name+" reports, then "+reloadHint, "")
		case m.Runtime == nil:
			why := "it contributes resources only"
			if m.IgnoredRuntime {
				why = "its legacy manifest's runtime is ignored (a runtime needs apiVersion reasonix.io/plugin/v1)"
			}
			setState(p, stateNoRuntime, why, time.Time{}, "", "")
		default:
			setState(p, stateNotStarted, "it was installed or enabled after the plugins were last loaded", time.Time{}, reloadHint, "")
		}
		out = append(out, *p)
	}
	return out, nil
}

// setState fills the state members; a crash or failed start is also the
// entry's error.
func setState(p *rxproto.PluginInfo, st rxproto.PluginState, reason string, since time.Time, recover, details string) {
	p.State, p.Reason, p.Recover, p.Details = st, reason, recover, details
	p.Running = st == stateRunning
	if !since.IsZero() {
		p.Since = since.UTC().Format(time.RFC3339Nano)
	}
	if st == stateCrashed || st == stateFailed {
		p.Error = reason
	}
}

func describeRuntime(rt *manifest.Runtime, root string) *rxproto.RuntimeInfo {
	cmd, err := rt.ExpandedCommand(root)
	if err != nil {
		cmd = rt.Command
	}
	j := &rxproto.RuntimeInfo{Command: cmd, Args: orEmpty(rt.Args), Required: rt.Required, Priority: int64(rt.Priority)}
	j.Intercepts, j.Replaces, j.Capabilities = rt.Declared()
	return j
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// PluginContents is what a plugin contributes beside its runtime, as
// served, in the editor protocol's shape (rx/plugins, and plugin show
// --json); m (nil when it does not load) adds its themes, which rx-bridge
// lists but never serves.
func PluginContents(pc pluginrt.PackageContents, m *manifest.Manifest, name string) rxproto.PluginContents {
	out := rxproto.PluginContents{
		Commands: []rxproto.ContentItem{}, Skills: []rxproto.ContentItem{}, Agents: []rxproto.ContentItem{},
		Hooks: []rxproto.HookInfo{}, McpServers: []rxproto.McpServerInfo{}, Themes: []string{}, Warnings: []string{},
	}
	for _, w := range pc.Warnings {
		w = strings.TrimPrefix(w, name+": ") // it is listed under the plugin
		out.Warnings = append(out.Warnings, strings.TrimPrefix(w, "warning: "))
	}
	for _, c := range pc.Commands {
		src := rxproto.CommandSourceCommand
		if c.Kind == plugincontent.KindPrompts {
			src = rxproto.CommandSourcePrompt
		}
		out.Commands = append(out.Commands, rxproto.ContentItem{Name: "/" + c.Name, Source: src, Description: redact.String(c.Description), ArgumentHint: redact.String(c.ArgHint)})
	}
	for _, sk := range pc.Skills {
		out.Skills = append(out.Skills, rxproto.ContentItem{Name: "/" + sk.SlashName(), Source: rxproto.CommandSourceSkill, Description: redact.String(sk.Description), Subagent: sk.Subagent})
	}
	for _, sk := range pc.Agents {
		out.Agents = append(out.Agents, rxproto.ContentItem{Name: "/" + sk.SlashName(), Source: rxproto.CommandSourceAgent, Description: redact.String(sk.Description), Subagent: true})
	}
	for _, h := range pc.Hooks {
		out.Hooks = append(out.Hooks, rxproto.HookInfo{Event: string(h.Event), Match: h.Match, Target: redact.String(hookTarget(h)), Description: redact.String(h.Description)})
	}
	for _, st := range pc.MCP {
		out.McpServers = append(out.McpServers, rxproto.McpServerInfo{Name: st.Name, Transport: st.Type, Target: st.Target, State: string(st.State), Tools: int64(st.Tools), Prompts: int64(st.Prompts), Error: st.Err})
	}
	if m != nil {
		for _, f := range m.ThemeFiles {
			out.Themes = append(out.Themes, manifest.ThemeID(name, f))
		}
	}
	return out
}

// hookTarget is what a hook runs, whole (Hook.Label clips it for
// notices): context:<file>, or the command with its exec-form arguments.
func hookTarget(h hookrun.Hook) string {
	if h.Form == hookrun.FormContext {
		return "context:" + h.ContextFile
	}
	return strings.Join(append([]string{h.Command}, h.Args...), " ")
}
