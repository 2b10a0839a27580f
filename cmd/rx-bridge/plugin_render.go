package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// manifestLabel says which manifest was read and how strictly.
func manifestLabel(m *manifest.Manifest) string {
	if m.Inferred != "" {
		return m.Source()
	}
	if m.Legacy() {
		return m.Kind.File() + " (legacy, no apiVersion)"
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
		fmt.Fprintf(&b, "runtime: IGNORED (the manifest has no apiVersion, so this runtime can never start)\n")
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
	fmt.Fprintln(w, "warnings:")
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
		return "FULL TRUST runtime"
	case "ignored":
		return "ignored (legacy manifest)"
	case "unknown":
		return "? (manifest error; run doctor)"
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
