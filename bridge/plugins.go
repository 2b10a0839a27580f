package bridge

import (
	"context"
	"strings"

	"github.com/rx-bridge/rx-bridge/manifest"
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
	Running      bool          `json:"running"`
	Generation   int64         `json:"generation"`
	Runtime      *runtimeJSON  `json:"runtime"`
	Trust        string        `json:"trust"`
	Error        string        `json:"error"`
}

type runtimeJSON struct {
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	Intercepts   []string `json:"intercepts"`
	Replaces     []string `json:"replaces"`
	Capabilities []string `json:"capabilities"`
	Required     bool     `json:"required"`
	Priority     int      `json:"priority"`
}

// plugins serves rx/plugins from the install records as they are now.
func (s *Server) plugins(context.Context, []byte) (any, error) {
	home, err := manifest.LoadHome(s.opts.Home)
	if err != nil {
		return nil, err
	}
	g := s.rt.mgr.Current()
	s.rt.mu.Lock()
	failures := s.rt.failures
	s.rt.mu.Unlock()
	out := []pluginJSON{}
	for _, r := range home.Records() {
		p := pluginJSON{
			Name: r.Name, Version: r.Version, Description: r.Description, Enabled: home.Enabled(r),
			Source: r.Source, Root: r.Dir(), ManifestKind: r.ManifestKind, Error: failures[r.Name],
		}
		if _, ok := g.Sidecar(r.Name); ok {
			p.Running, p.Generation = true, g.ID
		}
		m, err := manifest.Load(r.Dir())
		switch {
		case err != nil:
			if p.Error == "" {
				p.Error = err.Error()
			}
		case m.Runtime != nil:
			p.Runtime = describeRuntime(m.Runtime, r.Dir())
			var b strings.Builder
			if manifest.RenderTrust(&b, m.Runtime, r.Dir()) == nil {
				p.Trust = b.String()
			}
		}
		out = append(out, p)
	}
	return map[string]any{"plugins": out}, nil
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
