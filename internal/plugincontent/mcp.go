package plugincontent

import (
	"path"
	"strings"
)

// MCPBinding is one MCP tool of a plugin's own servers, as the MCP host
// names it; a plugin skill's body and allow-list are bound to them when it
// is invoked.
type MCPBinding struct {
	// Package is the plugin's installed name, Server the server's name.
	Package, Server string
	// RawName is the tool's name on the server; VisibleName the name the
	// server shows (its title, or RawName).
	RawName, VisibleName string
	// CallableName is the model-visible tool name,
	// mcp__<norm(server)>__<norm(tool)>.
	CallableName string
	// CapabilityID is mcp-tool:<server>/<raw tool>.
	CapabilityID string
}

const bindingsHeading = "\n\n## Runtime MCP tool bindings\n\n"

const bindingsSentence = "This plugin's MCP tools are available in this session under the names below; call them by the name after the arrow."

// prepare returns sk's body and allow-list bound to bindings: the body
// gains a "Runtime MCP tool bindings" section (always built from the
// authored body, so a heading the author wrote proves nothing and
// preparing twice adds one section), and each allow-list entry that names
// exactly one binding (by any of its aliases) becomes that binding's
// callable name and capability ID; a pattern is kept and gains the
// callable names and capability IDs of every binding it matches; an
// ambiguous or unknown name is kept as written.
func prepare(sk Skill, bindings []MCPBinding) (body string, allowed []string) {
	if len(bindings) == 0 {
		return sk.Body, sk.AllowedTools
	}
	var b strings.Builder
	b.WriteString(sk.Body + bindingsHeading + bindingsSentence + "\n")
	for _, bd := range bindings {
		b.WriteString("\n- `" + bd.Server + "/" + bd.RawName + "` → `" + bd.CallableName + "` (capability `" + bd.CapabilityID + "`)")
	}
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			allowed = append(allowed, s)
		}
	}
	for _, a := range sk.AllowedTools {
		if strings.ContainsAny(a, "*?[") {
			add(a)
			for _, bd := range bindings {
				for _, alias := range bindingAliases(bd) {
					if m, err := path.Match(a, alias); err == nil && m {
						add(bd.CallableName)
						add(bd.CapabilityID)
						break
					}
				}
			}
			continue
		}
		var hits []MCPBinding
		for _, bd := range bindings {
			for _, alias := range bindingAliases(bd) {
				if alias == a {
					hits = append(hits, bd)
					break
				}
			}
		}
		if len(hits) == 1 {
			add(hits[0].CallableName)
			add(hits[0].CapabilityID)
			continue
		}
		add(a)
	}
	return b.String(), allowed
}

// bindingAliases are the names an allow-list may use for a binding.
func bindingAliases(bd MCPBinding) []string {
	out := []string{bd.RawName, bd.VisibleName, bd.CallableName, bd.CapabilityID,
		bd.Server + "/" + bd.RawName, bd.Server + "/" + bd.VisibleName,
		"mcp-tool:" + bd.Server + "/" + bd.VisibleName}
	for _, n := range []string{bd.RawName, bd.VisibleName} {
		out = append(out, "mcp__"+bd.Server+"__"+n)
		if bd.Package != "" {
			out = append(out, "mcp__plugin_"+bd.Package+"_"+bd.Server+"__"+n)
		}
	}
	return out
}
