package mcphost

import (
	"fmt"
	"slices"
	"strings"
)

// Resolve maps a reference to one of the visible tools onto its
// model-visible name. Besides the name itself it accepts, without
// advertising them, the reference's aliases (PLUGIN_CONTENTS §4.7): the
// raw tool name, its normalised form, <server>/<raw|normalised>, the
// capability IDs mcp-tool:<server>/<raw|normalised>,
// mcp__<server>__<raw|normalised>, and for a package's server Claude's
// mcp__plugin_<package>_<server>__<raw|normalised>. A reference matching
// no tool wraps ErrUnknown; one matching several is an error listing them.
func (h *Host) Resolve(ref string) (string, error) {
	var hits []string
	for _, t := range h.Tools() {
		if t.stub {
			continue
		}
		if t.Name == ref {
			return t.Name, nil
		}
		if slices.Contains(aliases(t, h.owner(t.Server)), ref) && !slices.Contains(hits, t.Name) {
			hits = append(hits, t.Name)
		}
	}
	switch len(hits) {
	case 0:
		return "", fmt.Errorf("%w: %q", ErrUnknown, ref)
	case 1:
		return hits[0], nil
	}
	return "", fmt.Errorf("ambiguous MCP tool reference %q; use one of: %s", ref, strings.Join(hits, ", "))
}

func aliases(t Tool, owner string) []string {
	var out []string
	for _, n := range []string{t.RawName, Norm(t.RawName)} {
		out = append(out, n, t.Server+"/"+n, "mcp-tool:"+t.Server+"/"+n, "mcp__"+t.Server+"__"+n)
		if owner != "" {
			out = append(out, "mcp__plugin_"+owner+"_"+t.Server+"__"+n)
		}
	}
	return out
}

func (h *Host) owner(server string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.find(server); s != nil && s.cfg.Source == SourcePackage {
		return s.cfg.Owner
	}
	return ""
}
