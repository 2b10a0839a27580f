package exthost

import (
	"fmt"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// PluginsFromHome returns the runtimes the home's install records allow:
// enabled records whose v1 manifest declares a runtime. The install
// record is the only trust record that may start a sidecar; nothing from a
// workspace is consulted. Records that cannot start (an unreadable
// manifest, a legacy manifest declaring a runtime) are reported in
// problems, redacted, and left out. Every installed plugin's name is an
// identifier to the redactor before any plugin's env is learned, so one
// plugin's env cannot mask another's name either.
func PluginsFromHome(h *manifest.Home) (plugins []*Plugin, problems []string) {
	for _, r := range h.Records() {
		redact.AddIdentifiers(r.Name)
	}
	for _, r := range h.Records() {
		if !h.Enabled(r) {
			continue
		}
		m, err := manifest.Load(r.Dir())
		if err != nil {
			problems = append(problems, redact.String(fmt.Sprintf("plugin %s cannot start: %v", r.Name, err)))
			continue
		}
		if m.IgnoredRuntime {
			problems = append(problems, fmt.Sprintf("plugin %s declares a runtime in a legacy manifest (no apiVersion); legacy runtimes never start", r.Name))
			continue
		}
		if m.Runtime == nil {
			continue
		}
		plugins = append(plugins, PluginFromRecord(r, m))
	}
	return plugins, problems
}

// PluginFromRecord is the runtime an install record and its parsed v1
// manifest describe (m.Runtime must be set): the installed name and root,
// the installed version (else the manifest's), and the runtime block.
// The values of the runtime's env are given to the redactor
// (redact.AddSecrets) first: whatever a variable is called, the sidecar
// may echo its value on stderr or in any text it sends. The plugin's
// name and root are identifiers the host chose (redact.AddIdentifiers):
// a value equal to one of them (PLUGIN_NAME=<its name>) is not masked,
// so every message about the plugin names it.
func PluginFromRecord(r manifest.Record, m *manifest.Manifest) *Plugin {
	version := manifest.PackageOf(r, m).Version
	rt := m.Runtime
	values := make([]string, 0, len(rt.Env))
	for _, v := range rt.Env {
		values = append(values, v)
	}
	redact.AddIdentifiers(r.Name, r.Dir())
	redact.AddSecrets(values...)
	return &Plugin{ID: r.Name, Root: r.Dir(), Version: version, Runtime: *rt}
}
