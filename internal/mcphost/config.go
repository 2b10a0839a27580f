package mcphost

import (
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The transport types a Server may have once normalised.
const (
	TypeStdio = "stdio" // a subprocess speaking NDJSON JSON-RPC on stdin/stdout
	TypeHTTP  = "http"  // Streamable HTTP
	TypeSSE   = "sse"   // the legacy HTTP+SSE transport
)

// Source says who configured a server.
type Source string

// The server sources. Both are user-authorized: neither needs a launch
// approval, and the agent blocks their tools only on an explicit deny rule.
const (
	SourceUser    Source = "user"           // the user's config.toml
	SourcePackage Source = "plugin_package" // an installed plugin package
)

// Server is one MCP server definition, as the host runs it. Strings may
// still hold ${VAR} / ${VAR:-default} references: they are expanded at
// connect time (see Options.Getenv).
type Server struct {
	// Name is the server's name: the key under mcpServers, the config
	// table name, or the stable ID of an imported Claude server.
	Name string
	// Type is stdio, http or sse; empty means stdio without URL and http
	// with one. "local" (stdio), "streamable-http" and "streamable_http"
	// (http) are accepted spellings.
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	// Dir is a stdio server's working directory; empty inherits the
	// host's (package and user servers do).
	Dir string
	// AutoStart false keeps the server stopped until Connect.
	AutoStart   bool
	DisplayName string
	Description string
	// Imported marks a server read from a Claude .mcp.json.
	Imported bool
	Source   Source
	// Owner is the installed package name of a package server.
	Owner string
	// CallTimeout and StartupTimeout override the host's defaults when
	// positive; ToolTimeouts overrides CallTimeout per raw tool name.
	CallTimeout    time.Duration
	StartupTimeout time.Duration
	ToolTimeouts   map[string]time.Duration
}

// transport normalises Type.
func (s *Server) transport() (string, error) {
	switch strings.ToLower(strings.TrimSpace(s.Type)) {
	case "":
		if strings.TrimSpace(s.URL) != "" {
			return TypeHTTP, nil
		}
		return TypeStdio, nil
	case "stdio", "local":
		return TypeStdio, nil
	case "http", "streamable-http", "streamable_http":
		return TypeHTTP, nil
	case "sse":
		return TypeSSE, nil
	}
	return "", fmt.Errorf("MCP server %q uses unsupported transport %q", s.Name, s.Type)
}

// Transport is s's transport (stdio, http or sse), or "" when its type is
// not one rx-bridge supports.
func (s *Server) Transport() string {
	t, _ := s.transport()
	return t
}

// check reports what keeps s from ever starting.
func (s *Server) check() (string, error) {
	if strings.TrimSpace(s.Name) == "" {
		return "", fmt.Errorf("MCP server name is required")
	}
	t, err := s.transport()
	if err != nil {
		return "", err
	}
	if t == TypeStdio && strings.TrimSpace(s.Command) == "" {
		return "", fmt.Errorf("MCP server %q command is required", s.Name)
	}
	if t != TypeStdio && strings.TrimSpace(s.URL) == "" {
		return "", fmt.Errorf("MCP server %q url is required", s.Name)
	}
	return t, nil
}

// Target is what the server runs or reaches: the command or the URL, for
// listings (plugin show: "<name> [<transport>] - <command|url>").
func (s *Server) Target() string {
	if t, _ := s.transport(); t == TypeStdio {
		return s.Command
	}
	return s.URL
}

// identity is the connection identity: what the server runs or reaches.
// Two servers with the same identity are the same server.
func (s *Server) identity() string {
	t, _ := s.transport()
	return strings.Join(slices.Concat([]string{t, s.Command}, s.Args, []string{s.URL}), "\x00")
}

// expanded returns s with every string field's ${VAR} and ${VAR:-default}
// references expanded through getenv; an unset variable without a default
// is the empty string.
func (s Server) expanded(getenv func(string) (string, bool)) Server {
	x := func(v string) string { return expandVars(v, getenv) }
	s.Command, s.URL, s.Dir = x(s.Command), x(s.URL), x(s.Dir)
	s.Args = mapSlice(s.Args, x)
	s.Env = mapValues(s.Env, x)
	s.Headers = mapValues(s.Headers, x)
	return s
}

// expandVars expands ${VAR} and ${VAR:-default}; other text, including
// $VAR and an unterminated ${, stays as written.
func expandVars(s string, getenv func(string) (string, bool)) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := strings.IndexByte(s[i+2:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		ref := s[i+2 : i+2+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if v, ok := getenv(name); ok && (v != "" || !hasDef) {
			b.WriteString(v)
		} else if hasDef {
			b.WriteString(def)
		}
		s = s[i+2+end+1:]
	}
}

// Merge is the session's server list: the user's servers first, then the
// package servers in the order given (installed-name order). A package
// server whose name the user already defines is skipped; one whose name an
// earlier package took collapses into it when both are the same
// definition (the identity environment variables aside) and is skipped
// otherwise. Each skip is a warning in the reference's words.
func Merge(user, packages []Server) ([]Server, []string) {
	out := slices.Clone(user)
	var warnings []string
	byName := map[string]int{}
	for i, s := range user {
		byName[s.Name] = i
	}
	for _, s := range packages {
		i, taken := byName[s.Name]
		switch {
		case !taken:
			byName[s.Name] = len(out)
			out = append(out, s)
		case out[i].Source != SourcePackage:
			warnings = append(warnings, fmt.Sprintf("%s: plugin MCP server %q skipped because config already defines that name", s.Owner, s.Name))
		case !sameDefinition(out[i], s):
			warnings = append(warnings, fmt.Sprintf("%s: plugin MCP server %q conflicts with package %s and was skipped", s.Owner, s.Name, out[i].Owner))
		}
	}
	return out, warnings
}

// identityEnv are the variables the host adds to a package server's
// environment; they name the package, so they are not part of what the
// server is.
var identityEnv = []string{"REASONIX_PLUGIN_ROOT", "REASONIX_PLUGIN_NAME", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR", "REASONIX_WORKSPACE_ROOT", "REASONIX_PLUGIN_VERSION"}

func sameDefinition(a, b Server) bool {
	strip := func(s Server) Server {
		s.Env = maps.Clone(s.Env)
		for _, k := range identityEnv {
			delete(s.Env, k)
		}
		if len(s.Env) == 0 {
			s.Env = nil
		}
		s.Owner = ""
		return s
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// envList is os.Environ-style base plus overrides; on Windows names
// compare case-insensitively (PATH and Path are one variable).
func envList(base []string, add map[string]string) []string {
	same := func(a, b string) bool {
		if runtime.GOOS == "windows" {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	out := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(slices.Collect(maps.Keys(add)), func(a string) bool { return same(a, k) }) {
			out = append(out, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(add)) {
		out = append(out, k+"="+add[k])
	}
	return out
}

// fileURI is the roots entry for a workspace directory.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func mapSlice(in []string, f func(string) string) []string {
	if in == nil {
		return nil
	}
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func mapValues(in map[string]string, f func(string) string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// bridgeEnv are the variables the host itself gives a package server
// (packageServer): paths and names it chose, not secrets.
var bridgeEnv = map[string]bool{
	"REASONIX_PLUGIN_ROOT": true, "REASONIX_PLUGIN_NAME": true, "REASONIX_PLUGIN_VERSION": true,
	"CLAUDE_PLUGIN_ROOT": true, "CLAUDE_PROJECT_DIR": true, "REASONIX_WORKSPACE_ROOT": true,
}

// learnSecrets gives the redactor what cfg (expanded) hands its server
// and the server may echo in any text it writes: every env value but the
// host's own (bridgeEnv), every header value (and its credential without
// the scheme: "Bearer <token>"), and the secret-looking args
// (redact.SecretArgs). The server's name, its owner, its directory, the
// workspace and the host's own env values are identifiers: a value equal
// to one of them is never masked, so messages about the server still name
// it.
func learnSecrets(cfg Server, workspace string) {
	ids := []string{cfg.Name, cfg.Owner, cfg.Dir, workspace}
	var values []string
	for k, v := range cfg.Env {
		if bridgeEnv[k] {
			ids = append(ids, v)
			continue
		}
		values = append(values, v)
	}
	for _, v := range cfg.Headers {
		values = append(values, v)
		if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok {
			values = append(values, cred)
		}
	}
	values = append(values, redact.SecretArgs(cfg.Args)...)
	redact.AddIdentifiers(ids...)
	redact.AddSecrets(values...)
}
