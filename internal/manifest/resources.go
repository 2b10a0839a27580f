package manifest

import (
	"encoding/json"
	"fmt"
	"path"
	"reflect"
	"sort"
	"strings"
)

// Resources are the non-runtime contributions of a plugin. Path lists are
// cleaned, relative to the plugin root with forward slashes, deduplicated
// and sorted; entries may be per-segment globs.
type Resources struct {
	Skills   []string
	Agents   []string
	Commands []string
	Prompts  []string
	Themes   []string
	// Hooks maps an event name to its hook entries (v1 manifests only).
	Hooks map[string][]Hook
	// MCPServers maps a server name to its definition (v1 manifests only).
	MCPServers map[string]MCPServer
}

// Hook is one hook entry of a v1 manifest, as declared.
type Hook struct {
	Match   string
	Command string
	// Args selects the exec form when present, even empty, so nil and an
	// empty slice differ.
	Args []string
	// ContextFile is a file whose content the hook injects instead of
	// running a command.
	ContextFile string
	// ShellCommand is the legacy spelling of a shell-form command.
	ShellCommand  string
	Shell         string
	Async         bool
	PayloadFormat string
	Description   string
	// Timeout is the hook's own timeout as declared.
	Timeout float64
	Cwd     string
	Env     map[string]string
}

// MCPServer is one MCP server definition of a v1 manifest, as declared.
type MCPServer struct {
	Type        string
	Command     string
	Args        []string
	Env         map[string]string
	URL         string
	Headers     map[string]string
	AutoStart   *bool
	Tier        string
	DisplayName string
	Description string
	Imported    bool
}

// pathKinds are the path-list members, in the order they are reported.
var pathKinds = []string{"skills", "agents", "commands", "prompts", "themes"}

func (res *Resources) list(kind string) *[]string {
	switch kind {
	case "skills":
		return &res.Skills
	case "agents":
		return &res.Agents
	case "commands":
		return &res.Commands
	case "prompts":
		return &res.Prompts
	case "themes":
		return &res.Themes
	}
	panic("manifest: unknown path kind " + kind)
}

// origins remembers where each path was first declared, so a problem found
// later on disk names the member the author wrote.
type origins map[string]string

func (o origins) note(kind, p, where string) {
	k := kind + "\x00" + p
	if _, ok := o[k]; !ok {
		o[k] = where
	}
}

func (o origins) of(kind, p string) string { return o[kind+"\x00"+p] }

// pathList reads a path list: a string, an array of strings, or an array of
// {"path": "..."} objects, each entry passing the lexical path rule.
func (r *reader) pathList(kind, at string, raw json.RawMessage, o origins) []string {
	add := func(where, p string, out *[]string) {
		c, err := cleanRel(p)
		if err != nil {
			r.addf(where, "%v", err)
			return
		}
		if isGlob(c) {
			if err := checkPattern(c); err != nil {
				r.addf(where, "%v", err)
				return
			}
		}
		o.note(kind, c, where)
		*out = append(*out, c)
	}
	var out []string
	switch jsonKind(raw) {
	case "string":
		var s string
		if r.str(at, raw, &s) {
			add(at, s, &out)
		}
	case "array":
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			r.addf(at, "%v", err)
			return nil
		}
		for i, e := range elems {
			where := indexPath(at, i)
			var s string
			switch jsonKind(e) {
			case "string":
				if r.str(where, e, &s) {
					add(where, s, &out)
				}
			case "object":
				got := false
				r.object(where, e, map[string]field{"path": func(p string, v json.RawMessage) {
					got = r.str(p, v, &s)
				}})
				if got {
					add(joinPath(where, "path"), s, &out)
				} else if !r.hasProblemAt(where) {
					r.addf(where, "needs a path")
				}
			default:
				r.addf(where, "want a path string or {\"path\": ...}, got %s", jsonKind(e))
			}
		}
	default:
		r.addf(at, "want a path or a list of paths, got %s", jsonKind(raw))
	}
	return out
}

func (r *reader) hasProblemAt(prefix string) bool {
	for _, p := range r.problems {
		if p.Path == prefix || strings.HasPrefix(p.Path, prefix+".") || strings.HasPrefix(p.Path, prefix+"[") {
			return true
		}
	}
	return false
}

// checkPattern rejects a glob that path.Match could never evaluate, one
// segment at a time as the matcher walks it.
func checkPattern(p string) error {
	for _, seg := range strings.Split(p, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("invalid glob %q: %v", p, err)
		}
	}
	return nil
}

var hookShells = []string{"auto", "bash", "powershell", "pwsh", "cmd"}

// hooks reads {"<Event>": [Hook, ...]}, noting where each contextFile was
// declared for the on-disk check.
func (r *reader) hooks(at string, raw json.RawMessage, o origins) map[string][]Hook {
	ms, ok := r.members(at, raw)
	if !ok {
		return nil
	}
	out := map[string][]Hook{}
	for _, m := range ms {
		ev := joinPath(at, m.key)
		if strings.TrimSpace(m.key) == "" {
			r.addf(ev, "hook event name must not be empty")
			continue
		}
		if jsonKind(m.raw) != "array" {
			r.addf(ev, "want an array of hooks, got %s", jsonKind(m.raw))
			continue
		}
		var elems []json.RawMessage
		_ = json.Unmarshal(m.raw, &elems)
		for i, e := range elems {
			if h, ok := r.hook(indexPath(ev, i), e); ok {
				out[m.key] = append(out[m.key], h)
				if h.ContextFile != "" {
					o.note("contextFile", h.ContextFile, joinPath(indexPath(ev, i), "contextFile"))
				}
			}
		}
	}
	return out
}

func (r *reader) hook(at string, raw json.RawMessage) (Hook, bool) {
	var h Hook
	before := len(r.problems)
	r.object(at, raw, map[string]field{
		"match":         func(p string, v json.RawMessage) { r.str(p, v, &h.Match) },
		"command":       func(p string, v json.RawMessage) { r.str(p, v, &h.Command) },
		"args":          func(p string, v json.RawMessage) { r.strings(p, v, &h.Args) },
		"contextFile":   func(p string, v json.RawMessage) { r.relPath(p, v, &h.ContextFile) },
		"shellCommand":  func(p string, v json.RawMessage) { r.str(p, v, &h.ShellCommand) },
		"shell":         func(p string, v json.RawMessage) { r.enum(p, v, &h.Shell, hookShells) },
		"async":         func(p string, v json.RawMessage) { r.boolean(p, v, &h.Async) },
		"payloadFormat": func(p string, v json.RawMessage) { r.str(p, v, &h.PayloadFormat) },
		"description":   func(p string, v json.RawMessage) { r.str(p, v, &h.Description) },
		"timeout":       func(p string, v json.RawMessage) { r.nonNegative(p, v, &h.Timeout) },
		"cwd":           func(p string, v json.RawMessage) { r.cwd(p, v, &h.Cwd) },
		"env":           func(p string, v json.RawMessage) { r.stringMap(p, v, &h.Env) },
	})
	if len(r.problems) > before {
		return h, false
	}
	if strings.TrimSpace(h.Command) == "" && strings.TrimSpace(h.ShellCommand) == "" && h.ContextFile == "" {
		r.addf(at, "a hook needs command or contextFile")
		return h, false
	}
	// A relative exec-form program is resolved against the plugin root, so it
	// must stay inside it; absolute and variable-prefixed ones are the
	// author's explicit choice.
	if h.Args != nil && h.Command != "" && !strings.HasPrefix(h.Command, "$") && !isAbsAnyOS(h.Command) {
		if _, err := cleanRel(h.Command); err != nil {
			r.addf(joinPath(at, "command"), "%v", err)
			return h, false
		}
	}
	return h, true
}

func isAbsAnyOS(p string) bool {
	s := strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	return strings.HasPrefix(s, "/") || hasDrive(s)
}

func (r *reader) relPath(at string, raw json.RawMessage, dst *string) {
	var s string
	if !r.str(at, raw, &s) {
		return
	}
	c, err := cleanRel(s)
	if err != nil {
		r.addf(at, "%v", err)
		return
	}
	*dst = c
}

func (r *reader) cwd(at string, raw json.RawMessage, dst *string) {
	var s string
	if !r.str(at, raw, &s) {
		return
	}
	if isAbsAnyOS(s) || strings.HasPrefix(s, "$") {
		*dst = s
		return
	}
	r.relPath(at, raw, dst)
}

func (r *reader) enum(at string, raw json.RawMessage, dst *string, allowed []string) {
	var s string
	if !r.str(at, raw, &s) {
		return
	}
	for _, a := range allowed {
		if s == a {
			*dst = s
			return
		}
	}
	r.addf(at, "unknown value %q (want one of: %s)", s, strings.Join(allowed, ", "))
}

func (r *reader) nonNegative(at string, raw json.RawMessage, dst *float64) {
	if k := jsonKind(raw); k != "number" {
		r.addf(at, "want a number, got %s", k)
		return
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil || f < 0 {
		r.addf(at, "must be a non-negative number")
		return
	}
	*dst = f
}

// mcpServers reads {"<name>": MCPServer}.
func (r *reader) mcpServers(at string, raw json.RawMessage) map[string]MCPServer {
	ms, ok := r.members(at, raw)
	if !ok {
		return nil
	}
	out := map[string]MCPServer{}
	for _, m := range ms {
		where := joinPath(at, m.key)
		if !serverName.MatchString(m.key) {
			r.addf(where, "invalid MCP server name %q: use 1 to 64 letters, digits, \"-\", \"_\" or \".\", starting with a letter or digit", m.key)
			continue
		}
		if s, ok := r.mcpServer(where, m.raw); ok {
			out[m.key] = s
		}
	}
	return out
}

func (r *reader) mcpServer(at string, raw json.RawMessage) (MCPServer, bool) {
	var s MCPServer
	before := len(r.problems)
	r.object(at, raw, map[string]field{
		"type":    func(p string, v json.RawMessage) { r.str(p, v, &s.Type) },
		"command": func(p string, v json.RawMessage) { r.str(p, v, &s.Command) },
		"args":    func(p string, v json.RawMessage) { r.strings(p, v, &s.Args) },
		"env":     func(p string, v json.RawMessage) { r.stringMap(p, v, &s.Env) },
		"url":     func(p string, v json.RawMessage) { r.str(p, v, &s.URL) },
		"headers": func(p string, v json.RawMessage) { r.stringMap(p, v, &s.Headers) },
		"auto_start": func(p string, v json.RawMessage) {
			var b bool
			if r.boolean(p, v, &b) {
				s.AutoStart = &b
			}
		},
		"tier":         func(p string, v json.RawMessage) { r.str(p, v, &s.Tier) },
		"display_name": func(p string, v json.RawMessage) { r.str(p, v, &s.DisplayName) },
		"description":  func(p string, v json.RawMessage) { r.str(p, v, &s.Description) },
		"imported":     func(p string, v json.RawMessage) { r.boolean(p, v, &s.Imported) },
	})
	if len(r.problems) > before {
		return s, false
	}
	if strings.TrimSpace(s.Command) == "" && strings.TrimSpace(s.URL) == "" {
		r.addf(at, "an MCP server needs command or url")
		return s, false
	}
	return s, true
}

// merge folds the contributes block into the legacy top-level members:
// path lists are unioned, identical hooks and servers collapse, and one
// key defined two different ways is an error naming the key, because
// silently picking one would run something the author did not review.
func (r *reader) merge(top, con Resources) Resources {
	var out Resources
	for _, kind := range pathKinds {
		*out.list(kind) = union(*top.list(kind), *con.list(kind))
	}
	out.Hooks = r.mergeHooks(top.Hooks, con.Hooks)
	out.MCPServers = map[string]MCPServer{}
	for name, s := range top.MCPServers {
		out.MCPServers[name] = s
	}
	for _, name := range sortedKeys(con.MCPServers) {
		s := con.MCPServers[name]
		if prev, ok := out.MCPServers[name]; ok && !reflect.DeepEqual(prev, s) {
			r.addf(joinPath("contributes.mcpServers", name), "MCP server %q is defined differently in mcpServers and contributes.mcpServers", name)
			continue
		}
		out.MCPServers[name] = s
	}
	if len(out.MCPServers) == 0 {
		out.MCPServers = nil
	}
	return out
}

func (r *reader) mergeHooks(top, con map[string][]Hook) map[string][]Hook {
	out := map[string][]Hook{}
	for ev, hs := range top {
		out[ev] = append([]Hook(nil), hs...)
	}
	for _, ev := range sortedKeys(con) {
	next:
		for i, h := range con[ev] {
			for _, prev := range top[ev] {
				if hookKey(prev) != hookKey(h) {
					continue
				}
				if !reflect.DeepEqual(prev, h) {
					r.addf(indexPath(joinPath("contributes.hooks", ev), i), "hook %q (event %s) is defined differently in hooks and contributes.hooks", hookLabel(h), ev)
				}
				continue next
			}
			out[ev] = append(out[ev], h)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func hookKey(h Hook) string {
	cmd := h.Command
	if cmd == "" {
		cmd = h.ShellCommand
	}
	return cmd + "\x00" + h.ContextFile
}

func hookLabel(h Hook) string {
	switch {
	case h.Command != "":
		return h.Command
	case h.ShellCommand != "":
		return h.ShellCommand
	}
	return h.ContextFile
}

func union(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range [][]string{a, b} {
		for _, p := range l {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	return out
}
