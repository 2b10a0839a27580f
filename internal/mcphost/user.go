package mcphost

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// userServer is one [mcp_servers.<name>] table of config.toml. Unknown
// keys are errors with the file and line (manifest.Config.DecodeSection).
type userServer struct {
	Type           string             `toml:"type"`
	Command        string             `toml:"command"`
	Args           []string           `toml:"args"`
	Env            map[string]string  `toml:"env"`
	URL            string             `toml:"url"`
	Headers        map[string]string  `toml:"headers"`
	Cwd            string             `toml:"cwd"`
	AutoStart      *bool              `toml:"auto_start"`
	Tier           string             `toml:"tier"`
	DisplayName    string             `toml:"display_name"`
	Description    string             `toml:"description"`
	CallTimeout    float64            `toml:"call_timeout_seconds"`
	StartupTimeout float64            `toml:"startup_timeout_seconds"`
	ToolTimeouts   map[string]float64 `toml:"tool_timeout_seconds"`
}

// UserServers reads the user's own servers from config.toml:
//
//	[mcp_servers.github]
//	command = "npx"
//	args = ["-y", "@modelcontextprotocol/server-github"]
//	env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
//	call_timeout_seconds = 120          # also startup_timeout_seconds
//	tool_timeout_seconds = { search_code = 30 }
//
//	[mcp_servers.remote]
//	type = "http"                       # stdio (default without url), http, sse
//	url = "https://example.com/mcp"
//	headers = { Authorization = "Bearer ${TOKEN}" }
//	auto_start = false
//
// The members are the package manifest's (type, command, args, env, url,
// headers, auto_start, tier, display_name, description) plus cwd and the
// timeouts that only the user's config may set. Servers come back in name
// order, Source SourceUser. A bad name, a negative timeout or a server
// that can never start is an error naming the table.
func UserServers(cfg *manifest.Config) ([]Server, error) {
	var m map[string]userServer
	if err := cfg.DecodeSection("mcp_servers", &m); err != nil {
		return nil, err
	}
	var out []Server
	for _, name := range slices.Sorted(maps.Keys(m)) {
		u := m[name]
		at := "mcp_servers." + name
		if !validServerName.MatchString(name) {
			return nil, fmt.Errorf("%s: invalid MCP server name %q: use 1 to 64 letters, digits, \"-\", \"_\" or \".\", starting with a letter or digit", at, name)
		}
		secs := func(key string, v float64) (time.Duration, error) {
			if v < 0 {
				return 0, fmt.Errorf("%s.%s: must not be negative", at, key)
			}
			return time.Duration(v * float64(time.Second)), nil
		}
		s := Server{Name: name, Type: u.Type, Command: u.Command, Args: u.Args, Env: u.Env, URL: u.URL, Headers: u.Headers, Dir: u.Cwd,
			AutoStart: u.AutoStart == nil || *u.AutoStart, DisplayName: u.DisplayName, Description: u.Description, Source: SourceUser}
		var err error
		if s.CallTimeout, err = secs("call_timeout_seconds", u.CallTimeout); err != nil {
			return nil, err
		}
		if s.StartupTimeout, err = secs("startup_timeout_seconds", u.StartupTimeout); err != nil {
			return nil, err
		}
		for tool, v := range u.ToolTimeouts {
			d, err := secs("tool_timeout_seconds."+tool, v)
			if err != nil {
				return nil, err
			}
			if s.ToolTimeouts == nil {
				s.ToolTimeouts = map[string]time.Duration{}
			}
			s.ToolTimeouts[tool] = d
		}
		if _, err := s.check(); err != nil {
			return nil, fmt.Errorf("%s: %v", at, err)
		}
		out = append(out, s)
	}
	return out, nil
}
