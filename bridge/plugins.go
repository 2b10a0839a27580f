package bridge

import (
	"context"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/manifest"
	"github.com/rx-bridge/rx-bridge/redact"
)

// pluginJSON is one entry of rx/plugins (EDITOR_PROTOCOL.md §2.4).
type pluginJSON struct {
	Name         string        `json:"name"`
	Version      string        `json:"version"`
	Description  string        `json:"description"`
	Enabled      bool          `json:"enabled"`
	Source       string        `json:"source"`
	Root         string        `json:"root"`
	ManifestKind manifest.Kind `json:"manifestKind"`
	// Running is State == running.
	Running    bool  `json:"running"`
	Generation int64 `json:"generation"`
	// State is where the plugin's runtime is now; Reason says why (one
	// redacted line, with the protocol reason when there is one), Since
	// when (RFC 3339; empty when unknown), Recover what brings it back,
	// and Details the redacted stderr tail of a crash or failed start.
	State   pluginState  `json:"state"`
	Reason  string       `json:"reason"`
	Since   string       `json:"since"`
	Recover string       `json:"recover"`
	Details string       `json:"details"`
	Runtime *runtimeJSON `json:"runtime"`
	Trust   string       `json:"trust"`
	// Error is Reason when the plugin crashed or failed to start.
	Error string `json:"error"`
}

// pluginState is the state of a plugin's runtime in rx/plugins.
type pluginState string

const (
	stateRunning    pluginState = "running"
	stateCrashed    pluginState = "crashed"
	stateFailed     pluginState = "failed to start"
	stateDisabled   pluginState = "disabled"
	stateNotStarted pluginState = "not started"
	stateNoRuntime  pluginState = "no runtime"
)

type runtimeJSON struct {
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	Intercepts   []string `json:"intercepts"`
	Replaces     []string `json:"replaces"`
	Capabilities []string `json:"capabilities"`
	Required     bool     `json:"required"`
	Priority     int      `json:"priority"`
}

// reloadHint is how a stopped runtime comes back.
const reloadHint = "reload the plugins (rx.reload) to start a fresh sidecar"

// plugins serves rx/plugins from the install records as they are now.
func (s *Server) plugins(context.Context, []byte) (any, error) {
	out, err := s.pluginEntries()
	if err != nil {
		return nil, err
	}
	return map[string]any{"plugins": out}, nil
}

// pluginEntries describes every installed plugin and its runtime now.
func (s *Server) pluginEntries() ([]pluginJSON, error) {
	home, err := manifest.LoadHome(s.opts.Home)
	if err != nil {
		return nil, err
	}
	g := s.rt.set.Current().Gen
	failures := s.rt.set.Failures()
	out := []pluginJSON{}
	for _, r := range home.Records() {
		p := pluginJSON{
			Name: r.Name, Version: r.Version, Description: r.Description, Enabled: home.Enabled(r),
			Source: r.Source, Root: r.Dir(), ManifestKind: r.ManifestKind,
		}
		m, loadErr := manifest.Load(r.Dir())
		if loadErr == nil && m.Runtime != nil {
			p.Runtime = describeRuntime(m.Runtime, r.Dir())
			var b strings.Builder
			if manifest.RenderTrust(&b, m.Runtime, r.Dir()) == nil {
				p.Trust = b.String()
			}
		}
		sc, inGen := g.Sidecar(r.Name)
		failure, failed := failures[r.Name]
		switch {
		case inGen:
			p.Generation = g.ID
			if crash, ok := sc.CrashInfo(); ok {
				p.setState(stateCrashed, redact.String(crash.Err.Error()), crash.At,
					reloadHint+"; rx-bridge plugin doctor "+r.Name+" checks it meanwhile", crash.Stderr)
			} else {
				p.setState(stateRunning, "", sc.StartedAt, "", "")
			}
		case !p.Enabled:
			why, hint := "its install record disables it", "rx-bridge plugin enable "+r.Name+", then "+reloadHint
			if r.Enabled {
				why, hint = "config.toml disables it ([plugins."+r.Name+"] enabled = false)", "remove that setting, then "+reloadHint
			}
			p.setState(stateDisabled, why, time.Time{}, hint, "")
		case failed:
			p.setState(stateFailed, failure.Reason(), failure.At, "fix what rx-bridge plugin doctor "+r.Name+" reports, then "+reloadHint, failure.Stderr)
		case loadErr != nil:
			p.setState(stateFailed, redact.String(loadErr.Error()), time.Time{}, "fix what rx-bridge plugin doctor "+r.Name+" reports, then "+reloadHint, "")
		case m.Runtime == nil:
			why := "it contributes resources only"
			if m.IgnoredRuntime {
				why = "its legacy manifest's runtime is ignored (a runtime needs apiVersion reasonix.io/plugin/v1)"
			}
			p.setState(stateNoRuntime, why, time.Time{}, "", "")
		default:
			p.setState(stateNotStarted, "it was installed or enabled after the plugins were last loaded", time.Time{}, reloadHint, "")
		}
		out = append(out, p)
	}
	return out, nil
}

// setState fills the state members; a crash or failed start is also the
// entry's error.
func (p *pluginJSON) setState(st pluginState, reason string, since time.Time, recover, details string) {
	p.State, p.Reason, p.Recover, p.Details = st, reason, recover, details
	p.Running = st == stateRunning
	if !since.IsZero() {
		p.Since = since.UTC().Format(time.RFC3339Nano)
	}
	if st == stateCrashed || st == stateFailed {
		p.Error = reason
	}
}

func describeRuntime(rt *manifest.Runtime, root string) *runtimeJSON {
	cmd, err := rt.ExpandedCommand(root)
	if err != nil {
		cmd = rt.Command
	}
	j := &runtimeJSON{Command: cmd, Args: orEmpty(rt.Args), Required: rt.Required, Priority: rt.Priority}
	j.Intercepts, j.Replaces, j.Capabilities = rt.Declared()
	return j
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
