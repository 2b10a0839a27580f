package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rivo/uniseg"

	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// manifestLabel says which manifest was read and how strictly.
func manifestLabel(m *manifest.Manifest) string {
	if m.Inferred != "" {
		return m.Source()
	}
	if m.Legacy() {
		return locale.T("%s (legacy, no apiVersion)", m.Kind.File())
	}
	return m.Kind.File() + " (apiVersion " + m.APIVersion + ")"
}

// writeContributes lists what the plugin contributes besides a runtime,
// one indented line per kind.
func writeContributes(w io.Writer, m *manifest.Manifest, name string) {
	res := m.Resources
	line := func(label string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(w, "  %s: %s\n", label, strings.Join(items, ", "))
		}
	}
	line("skills", res.Skills)
	line("agents", res.Agents)
	line("commands", res.Commands)
	line("prompts", res.Prompts)
	var themes []string
	for _, f := range m.ThemeFiles {
		themes = append(themes, manifest.ThemeID(name, f))
	}
	line("themes", themes)
	var hooks []string
	for _, ev := range sortedKeys(res.Hooks) {
		hooks = append(hooks, fmt.Sprintf("%s (%d)", ev, len(res.Hooks[ev])))
	}
	if m.LegacyHooks != nil {
		hooks = append(hooks, "as declared (legacy format)")
	}
	line("hooks", hooks)
	servers := sortedKeys(res.MCPServers)
	if m.LegacyMCPServers != nil {
		servers = append(servers, "as declared (legacy format)")
	}
	line("mcpServers", servers)
}

// writeRuntime writes the FULL TRUST block of a plugin: its runtime and
// every other program it runs (progs: hook commands, stdio MCP servers),
// and says that a legacy manifest's runtime is ignored. prefix indents
// every line.
func writeRuntime(w io.Writer, m *manifest.Manifest, progs []manifest.Program, root, prefix string) error {
	var b bytes.Buffer
	if m.IgnoredRuntime {
		fmt.Fprintln(&b, locale.T("runtime: IGNORED (the manifest has no apiVersion, so this runtime can never start)"))
	}
	if err := manifest.RenderTrust(&b, m.Runtime, root, progs...); err != nil {
		return err
	}
	_, err := io.WriteString(w, indentLines(b.String(), prefix))
	return err
}

// recordPrograms are the programs of installed plugin r besides its
// runtime, for its FULL TRUST block; the workspace is the current
// directory, as for packageContents.
func recordPrograms(r manifest.Record, m *manifest.Manifest) []manifest.Program {
	wd, _ := os.Getwd()
	return pluginrt.Programs(manifest.PackageOf(r, m), filepath.Clean(wd))
}

// planPrograms are the programs of a planned install, read from its
// source and shown at the root the plugin will have.
func planPrograms(p *manifest.Plan) []manifest.Program {
	wd, _ := os.Getwd()
	progs := pluginrt.Programs(manifest.Package{Name: p.Name, Root: p.Source, Version: p.Manifest.Version, Manifest: p.Manifest}, filepath.Clean(wd))
	for i := range progs {
		progs[i] = progs[i].Relocate(p.Source, p.Root)
	}
	return progs
}

func indentLines(s, prefix string) string {
	if prefix == "" {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

func writeWarnings(w io.Writer, ws []manifest.Problem) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(w, locale.T("warnings:"))
	for _, p := range ws {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// runtimeKind is the RUNTIME column and the "runtime" JSON member.
func runtimeKind(m *manifest.Manifest, err error) string {
	switch {
	case err != nil:
		return "unknown"
	case m.Runtime != nil:
		return "full-trust"
	case m.IgnoredRuntime:
		return "ignored"
	}
	return "none"
}

func runtimeColumn(kind string) string {
	switch kind {
	case "full-trust":
		return locale.T("FULL TRUST runtime")
	case "ignored":
		return locale.T("ignored (legacy manifest)")
	case "unknown":
		return locale.T("? (manifest error; run doctor)")
	}
	return "-"
}

// stateOf is the STATE column and the "state" JSON member.
func stateOf(h *manifest.Home, r manifest.Record) string {
	switch {
	case !r.Enabled:
		return "disabled"
	case !h.Enabled(r):
		return "disabled-by-config"
	}
	return "enabled"
}

// installKind says how the plugin got into its home.
func installKind(h *manifest.Home, r manifest.Record) string {
	switch {
	case h.Foreign(r):
		return "reasonix"
	case r.Linked():
		return "link"
	}
	return "copy"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// versioned is `"name" version`, or just `"name"` without a version.
func versioned(name, version string) string {
	if version == "" {
		return fmt.Sprintf("%q", name)
	}
	return fmt.Sprintf("%q %s", name, version)
}

// stateLabel is a plugin's state ("enabled", "disabled",
// "disabled-by-config"; stateOf) in the user's language; --json keeps
// the state itself.
func stateLabel(state string) string {
	switch state {
	case "enabled":
		return locale.T("enabled")
	case "disabled":
		return locale.T("disabled")
	case "disabled-by-config":
		return locale.T("disabled-by-config")
	}
	return state
}

// installLabel is an install kind (installKind) in the user's language.
func installLabel(kind string) string {
	switch kind {
	case "copy":
		return locale.T("copy")
	case "link":
		return locale.T("link")
	}
	return kind // "reasonix" names the program
}

// liveLabel is a runtime's state in a running bridge (rxproto.PluginState)
// in the user's language.
func liveLabel(state string) string {
	switch rxproto.PluginState(state) {
	case rxproto.PluginStateRunning:
		return locale.T("running")
	case rxproto.PluginStateCrashed:
		return locale.T("crashed")
	case rxproto.PluginStateFailedToStart:
		return locale.T("failed to start")
	case rxproto.PluginStateDisabled:
		return locale.T("disabled")
	case rxproto.PluginStateNotStarted:
		return locale.T("not started")
	}
	return state
}

// levelLabel is a doctor check's level in the user's language, padded to
// the five columns of "  fail  …" so the lines below it stay aligned.
func levelLabel(l manifest.Level) string {
	s := string(l)
	switch l {
	case manifest.LevelOK:
		s = locale.T("ok")
	case manifest.LevelInfo:
		s = locale.T("info")
	case manifest.LevelWarn:
		s = locale.T("warn")
	case manifest.LevelFail:
		s = locale.T("fail")
	}
	return padCell(s, 5)
}

// padCell is s padded with spaces to n terminal columns; a Chinese
// character takes two.
func padCell(s string, n int) string {
	if w := uniseg.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// writeTable writes rows as left-aligned columns two spaces apart,
// measured in terminal columns (text/tabwriter counts a Chinese
// character as one and misaligns translated headings).
func writeTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], uniseg.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(padCell(c, widths[i]+2))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
