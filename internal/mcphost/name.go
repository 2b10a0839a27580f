package mcphost

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// Norm is the reference's name normaliser for MCP server, tool and prompt
// names in model-visible names: every run of characters outside
// [a-zA-Z0-9_-] becomes one "_", leading and trailing "_" are trimmed, an
// empty result is "unnamed", and a result that differs from the input gets
// "_" plus the first six hex digits of the input's FNV-1a-32 hash, so two
// odd names that normalise alike still differ. Permission rules, hooks and
// audit records use the same names.
func Norm(s string) string {
	var b strings.Builder
	run := false
	for _, r := range s {
		if r < 0x80 && (r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
			run = false
			continue
		}
		if !run {
			b.WriteByte('_')
			run = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "unnamed"
	}
	if out != s {
		out += "_" + fmt.Sprintf("%08x", fnv32a(s))[:6]
	}
	return out
}

// ToolName is the model-visible name of a server's tool:
// mcp__<Norm(server)>__<Norm(tool)>. Prompts use the same shape.
func ToolName(server, tool string) string {
	return "mcp__" + Norm(server) + "__" + Norm(tool)
}

// connectStubName is the one tool shown for a server whose tools are being
// discovered for the first time.
func connectStubName(server string) string { return ToolName(server, "connect") }

func fnv32a(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
