package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// list is `rx-bridge plugin list [--json]`. A plugin whose manifest no
// longer loads is still listed (with its runtime unknown) so the user can
// find and fix or remove it.
func (c *pluginCmd) list(args []string) int {
	const synopsis = "list [--json]"
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	if _, exit, ok := c.parse(fs, synopsis, args, 0, 0); !ok {
		return exit
	}
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	out := listJSON{Home: h.Dir, Plugins: []listPluginJSON{}, Warnings: nonNil(h.Warnings)}
	statuses := manifest.ReadStatuses(h.Dir)
	for _, r := range h.Records() {
		m, err := manifest.Load(r.Dir())
		out.Plugins = append(out.Plugins, listPluginJSON{pluginJSON: describePlugin(h, r, m, err), Live: liveOf(statuses, r.Name)})
	}
	if *asJSON {
		if err := writeJSON(c.stdout, out); err != nil {
			return c.failf("%v", err)
		}
		return 0
	}
	c.warn(h)
	if len(out.Plugins) == 0 {
		fmt.Fprintln(c.stdout, locale.T("No plugins installed in %s.", h.Dir))
		return 0
	}
	rows := [][]string{{locale.T("NAME"), locale.T("VERSION"), locale.T("STATE"), locale.T("RUNTIME"), locale.T("LIVE"), locale.T("INSTALL"), locale.T("ROOT")}}
	for _, p := range out.Plugins {
		version := p.Version
		if version == "" {
			version = "-"
		}
		rows = append(rows, []string{p.Name, version, stateLabel(p.State), runtimeColumn(p.Runtime), liveColumn(p.Live), installLabel(p.Install), p.Root})
	}
	if err := writeTable(c.stdout, rows); err != nil {
		return c.failf("%v", err)
	}
	for _, p := range out.Plugins {
		if p.Commit != "" {
			fmt.Fprintln(c.stdout, locale.T("%s is from %s at commit %s", p.Name, p.Source, shortCommit(p.Commit)))
		}
	}
	for _, p := range out.Plugins {
		for _, l := range p.Live {
			if l.State == "running" || l.Reason == "" {
				continue
			}
			if l.Since != "" {
				fmt.Fprintln(c.stdout, locale.T("%s %s since %s (editor of %s, rx-bridge pid %d): %s", p.Name, liveLabel(l.State), l.Since, l.Workspace, l.PID, l.Reason))
			} else {
				fmt.Fprintln(c.stdout, locale.T("%s %s (editor of %s, rx-bridge pid %d): %s", p.Name, liveLabel(l.State), l.Workspace, l.PID, l.Reason))
			}
			if l.Recover != "" {
				fmt.Fprintf(c.stdout, "  %s\n", locale.T("to recover: %s", l.Recover))
			}
		}
	}
	return 0
}

// liveOf is plugin name's runtime in each running bridge that has one.
func liveOf(statuses []manifest.BridgeStatus, name string) []liveJSON {
	out := []liveJSON{}
	for _, st := range statuses {
		for _, p := range st.Plugins {
			if p.Name == name && p.State != "no runtime" {
				out = append(out, liveJSON{PID: st.PID, Workspace: st.Workspace, PluginStatus: p})
			}
		}
	}
	return out
}

// liveColumn is LIVE: "-" when no running bridge has the plugin's
// runtime, else its state in each ("running", "crashed, running").
func liveColumn(live []liveJSON) string {
	if len(live) == 0 {
		return "-"
	}
	states := make([]string, len(live))
	for i, l := range live {
		states[i] = liveLabel(l.State)
	}
	return strings.Join(states, ", ")
}

// show is `rx-bridge plugin show <name> [--json]`. It exits 1 when the
// plugin's manifest does not load, after showing what the record says.
func (c *pluginCmd) show(args []string) int {
	const synopsis = "show <name> [--json]"
	fs := flag.NewFlagSet("show", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "")
	pos, exit, ok := c.parse(fs, synopsis, args, 1, 1)
	if !ok {
		return exit
	}
	h, err := c.home()
	if err != nil {
		return c.failf("%v", err)
	}
	r, ok := c.lookup(h, pos[0])
	if !ok {
		return 1
	}
	m, loadErr := manifest.Load(r.Dir())
	var pc rxproto.PluginContents
	var progs []manifest.Program
	if loadErr == nil {
		progs = recordPrograms(r, m)
		var contents *pluginrt.Contents
		pc, contents = packageContents(h, r, m)
		contents.Close()
	}
	if *asJSON {
		out := showJSON{pluginJSON: describePlugin(h, r, m, loadErr)}
		if loadErr == nil {
			out.Manifest = describeManifest(m, r.Name, r.Dir())
			out.Contents = &pc
			out.Programs = progs
		}
		if err := writeJSON(c.stdout, out); err != nil {
			return c.failf("%v", err)
		}
		if loadErr != nil {
			return 1
		}
		return 0
	}
	c.warn(h)
	w := c.stdout
	fmt.Fprintf(w, "plugin %s\n", versioned(r.Name, r.Version))
	if r.Description != "" {
		fmt.Fprintf(w, "  description: %s\n", r.Description)
	}
	fmt.Fprintf(w, "  %s\n", locale.T("state: %s", stateLabel(stateOf(h, r))))
	fmt.Fprintf(w, "  %s\n", locale.T("root: %s (%s)", r.Dir(), installLabel(installKind(h, r))))
	if r.Source != "" {
		fmt.Fprintf(w, "  %s\n", locale.T("source: %s", r.Source))
	}
	if r.Commit != "" {
		fmt.Fprintf(w, "  %s\n", locale.T("commit: %s (rx-bridge plugin update %s fetches it again)", r.Commit, r.Name))
	}
	fmt.Fprintf(w, "  %s\n", locale.T("recorded in: %s", r.Home))
	if loadErr != nil {
		fmt.Fprintf(w, "  %s\n", locale.T("manifest: does not load (run rx-bridge plugin doctor %s)", r.Name))
		return c.failf("%v", loadErr)
	}
	fmt.Fprintf(w, "  %s\n", locale.T("manifest: %s", manifestLabel(m)))
	if rt := m.Runtime; rt != nil {
		fmt.Fprintf(w, "  priority: %d\n", rt.Priority)
		if rt.TimeoutMillis > 0 {
			fmt.Fprintf(w, "  %s\n", locale.T("intercept timeout: %d ms at every hook point", rt.TimeoutMillis))
		} else {
			fmt.Fprintf(w, "  %s\n", locale.T("intercept timeout: the defaults (5 s for input, tool and permission points, 30 s for the rest)"))
		}
	}
	writeContents(w, pc, "  ")
	if err := writeRuntime(w, m, progs, r.Dir(), ""); err != nil {
		return c.failf("%v", err)
	}
	writeWarnings(w, m.Warnings)
	return 0
}
