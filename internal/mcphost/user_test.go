package mcphost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

func loadConfig(t *testing.T, body string) (*manifest.Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return manifest.LoadConfig(p)
}

func TestUserServers(t *testing.T) {
	t.Parallel()
	cfg, err := loadConfig(t, `
[mcp_servers.remote]
type = "http"
url = "https://example.com/mcp"
headers = { Authorization = "Bearer ${TOKEN}" }
auto_start = false

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github"]
env = { GITHUB_TOKEN = "${GITHUB_TOKEN}" }
cwd = "/srv"
call_timeout_seconds = 120
startup_timeout_seconds = 2.5
tool_timeout_seconds = { search_code = 30 }
`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := UserServers(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "github" || got[1].Name != "remote" {
		t.Fatalf("servers = %+v", got)
	}
	g, r := got[0], got[1]
	if g.Command != "npx" || g.Args[1] != "@modelcontextprotocol/server-github" || g.Env["GITHUB_TOKEN"] != "${GITHUB_TOKEN}" || g.Dir != "/srv" ||
		!g.AutoStart || g.Source != SourceUser || g.CallTimeout != 120*time.Second || g.StartupTimeout != 2500*time.Millisecond ||
		g.ToolTimeouts["search_code"] != 30*time.Second {
		t.Errorf("github = %+v", g)
	}
	if r.AutoStart || r.Headers["Authorization"] != "Bearer ${TOKEN}" || r.Type != "http" {
		t.Errorf("remote = %+v", r)
	}

	none, err := loadConfig(t, `model = "openai/gpt-4o"`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := UserServers(none); err != nil || got != nil {
		t.Errorf("no section: %v, %v", got, err)
	}

	for _, c := range []struct{ body, want string }{
		{"[mcp_servers.a]\ncomand = \"x\"\n", "mcp_servers.a.comand"},
		{"[mcp_servers.\"bad name\"]\ncommand = \"x\"\n", `invalid MCP server name "bad name"`},
		{"[mcp_servers.a]\ncommand = \"x\"\ncall_timeout_seconds = -1\n", "mcp_servers.a.call_timeout_seconds: must not be negative"},
		{"[mcp_servers.a]\ntype = \"sse\"\n", `mcp_servers.a: MCP server "a" url is required`},
		{"[mcp_servers.a]\ncommand = 3\n", "mcp_servers"},
	} {
		cfg, err := loadConfig(t, c.body)
		if err == nil {
			_, err = UserServers(cfg)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v; want %q", c.body, err, c.want)
		}
	}
}
