package manifest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
)

// Kind is the manifest format a plugin was read from.
type Kind string

// The manifest kinds, in lookup order. Only KindReasonix can carry a
// runtime.
const (
	KindReasonix Kind = "reasonix"
	KindCodex    Kind = "codex"
	KindClaude   Kind = "claude"
)

// File returns the manifest's path relative to the plugin root.
func (k Kind) File() string {
	switch k {
	case KindCodex:
		return ".codex-plugin/plugin.json"
	case KindClaude:
		return ".claude-plugin/plugin.json"
	}
	return "reasonix-plugin.json"
}

// Kinds lists the manifest kinds in lookup order.
var Kinds = []Kind{KindReasonix, KindCodex, KindClaude}

// MaxManifestBytes bounds a manifest file; a real one is a few KiB, and the
// bound keeps a hostile directory from making install read without limit.
const MaxManifestBytes = 1 << 20

// Manifest is a parsed, validated plugin manifest.
type Manifest struct {
	Kind Kind
	// APIVersion is the declared apiVersion; empty for a legacy manifest.
	APIVersion  string
	Name        string
	Version     string
	Description string
	Homepage    string
	Repository  string
	// Resources merges the legacy top-level members and contributes.
	Resources Resources
	// ThemeFiles are the theme files found on disk by Load (globs
	// expanded), relative to the root; Parse leaves it empty.
	ThemeFiles []string
	// Runtime is the sidecar to start; nil when none is declared and for
	// legacy manifests.
	Runtime *Runtime
	// IgnoredRuntime is set when a legacy manifest declares a runtime: it
	// is recorded so show and doctor can say it will never start.
	IgnoredRuntime bool
	// LegacyHooks and LegacyMCPServers keep a legacy manifest's hooks and
	// mcpServers as declared: their pre-v1 shapes vary by ecosystem and the
	// legacy reader does not judge them.
	LegacyHooks      json.RawMessage
	LegacyMCPServers json.RawMessage
	// Warnings do not block an install but are shown with it.
	Warnings []Problem
	// Digest is the SHA-256 of the manifest file, used to notice a source
	// that changed between preview and copy.
	Digest [32]byte
	// Inferred says where a manifest that no file holds came from: a
	// Claude Code package without .claude-plugin/plugin.json, read from
	// its folder layout, or a marketplace entry with "strict": false.
	// Synthesized is then the plugin.json that stands for it (Digest is
	// its hash); an install writes it into the copy.
	Inferred    string
	Synthesized []byte

	origins origins
}

// Source names where the manifest was read from: its file, or what an
// inferred one stands for.
func (m *Manifest) Source() string {
	if m.Inferred != "" {
		return "no manifest file: read from " + m.Inferred
	}
	return m.Kind.File()
}

// Legacy reports whether the manifest was read by the legacy reader.
func (m *Manifest) Legacy() bool { return m.APIVersion == "" }

// HasRuntime reports whether the manifest declares a runtime, startable or
// not.
func (m *Manifest) HasRuntime() bool { return m.Runtime != nil || m.IgnoredRuntime }

// Parse parses and validates a manifest of the given kind from its bytes.
// It checks everything that does not need the disk; Load adds the on-disk
// containment checks. Problems come back as *Error naming kind.File().
func Parse(kind Kind, data []byte) (*Manifest, error) {
	file := kind.File()
	if len(data) > MaxManifestBytes {
		return nil, &Error{File: file, Problems: []Problem{{Msg: fmt.Sprintf("manifest is larger than %d bytes", MaxManifestBytes)}}}
	}
	if err := syntaxCheck(data); err != nil {
		return nil, &Error{File: file, Problems: []Problem{{Msg: err.Error()}}}
	}
	r := &reader{}
	if jsonKind(data) != "object" {
		r.addf("", "manifest must be a JSON object, got %s", jsonKind(data))
		return nil, r.err(file)
	}
	m := &Manifest{Kind: kind, Digest: sha256.Sum256(data), origins: origins{}}
	if kind == KindReasonix {
		// The version picks the reader, so it is read first; the chosen
		// reader reports everything else, duplicates included, once.
		var scratch reader
		ms, _ := scratch.members("", data)
		for _, mem := range ms {
			if mem.key == "apiVersion" {
				m.APIVersion, _ = gateVersion(r, mem.raw, true)
			}
		}
		if len(r.problems) > 0 {
			return nil, r.err(file)
		}
	}
	var warn problems
	if m.Legacy() {
		parseLegacy(r, m, data, &warn)
	} else {
		parseV1(r, m, data, &warn)
	}
	if m.Name == "" && !r.hasProblemAt("name") {
		r.addf("name", "required")
	}
	if len(r.problems) > 0 {
		return nil, r.err(file)
	}
	m.Warnings = warn
	return m, nil
}

func (r *reader) header(m *Manifest) map[string]field {
	trimmed := func(dst *string) field {
		return func(p string, v json.RawMessage) {
			if r.str(p, v, dst) {
				*dst = strings.TrimSpace(*dst)
			}
		}
	}
	return map[string]field{
		"name": func(p string, v json.RawMessage) {
			var s string
			if !r.str(p, v, &s) {
				return
			}
			if err := ValidateName(s); err != nil {
				r.addf(p, "%v", err)
				return
			}
			m.Name = s
		},
		"version":     trimmed(&m.Version),
		"description": trimmed(&m.Description),
		"homepage":    trimmed(&m.Homepage),
		"repository":  trimmed(&m.Repository),
	}
}

func (r *reader) resourceFields(res *Resources, o origins, withObjects bool) map[string]field {
	fs := map[string]field{}
	for _, kind := range pathKinds {
		fs[kind] = func(p string, v json.RawMessage) { *res.list(kind) = r.pathList(kind, p, v, o) }
	}
	if withObjects {
		fs["hooks"] = func(p string, v json.RawMessage) { res.Hooks = r.hooks(p, v, o) }
		fs["mcpServers"] = func(p string, v json.RawMessage) { res.MCPServers = r.mcpServers(p, v) }
	}
	return fs
}

func parseV1(r *reader, m *Manifest, data []byte, warn *problems) {
	r.strict = true
	var top, con Resources
	fs := r.header(m)
	for k, f := range r.resourceFields(&top, m.origins, true) {
		fs[k] = f
	}
	fs["apiVersion"] = func(string, json.RawMessage) {}
	fs["contributes"] = func(p string, v json.RawMessage) {
		r.object(p, v, r.resourceFields(&con, m.origins, true))
	}
	fs["runtime"] = func(p string, v json.RawMessage) { m.Runtime = r.runtime(p, v, warn) }
	r.object("", data, fs)
	m.Resources = r.merge(top, con)
}

// parseLegacy is the pre-extension reader: unknown members are ignored and
// nothing it reads can start a process.
func parseLegacy(r *reader, m *Manifest, data []byte, warn *problems) {
	r.strict = false
	var res Resources
	fs := r.header(m)
	for k, f := range r.resourceFields(&res, m.origins, false) {
		fs[k] = f
	}
	fs["hooks"] = func(_ string, v json.RawMessage) { m.LegacyHooks = v }
	fs["mcpServers"] = func(_ string, v json.RawMessage) { m.LegacyMCPServers = v }
	if m.Kind == KindReasonix {
		fs["runtime"] = func(p string, _ json.RawMessage) {
			m.IgnoredRuntime = true
			warn.addf(p, "ignored: a manifest without apiVersion can never start a runtime (add \"apiVersion\": %q)", APIVersionV1)
		}
		fs["contributes"] = func(p string, _ json.RawMessage) {
			warn.addf(p, "ignored: contributes needs \"apiVersion\": %q", APIVersionV1)
		}
	}
	r.object("", data, fs)
	for _, kind := range pathKinds {
		*res.list(kind) = union(*res.list(kind), nil)
	}
	m.Resources = res
}
