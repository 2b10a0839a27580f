package exthost

import (
	"slices"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// Plugin is what the host needs to start one installed runtime: the
// installed identity and the manifest's runtime block, already validated
// (its Command is the declared one, before ${REASONIX_PLUGIN_ROOT}
// expansion).
type Plugin struct {
	ID      string // installed plugin id (REASONIX_PLUGIN_NAME)
	Root    string // installed root (REASONIX_PLUGIN_ROOT)
	Version string // installed version, else the manifest's

	manifest.Runtime
}

// HasCapability reports whether the manifest declares c.
func (p *Plugin) HasCapability(c extproto.Capability) bool {
	return slices.Contains(p.Capabilities, c)
}

// Intercepting reports whether the manifest lists point in intercepts.
func (p *Plugin) Intercepting(point extproto.HookPoint) bool {
	return slices.Contains(p.Intercepts, point)
}

// expectation is the manifest part of extension/initialize.
func (p *Plugin) expectation() extproto.ManifestExpectation {
	var m extproto.ManifestExpectation
	for _, pt := range p.Intercepts {
		m.Intercepts = append(m.Intercepts, string(pt))
	}
	for _, s := range p.Replaces {
		m.Replaces = append(m.Replaces, s.String())
	}
	for _, c := range p.Capabilities {
		m.Capabilities = append(m.Capabilities, string(c))
	}
	return m
}
