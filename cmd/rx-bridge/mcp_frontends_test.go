package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installClaudeMCP installs into e's home a Claude Code-format package
// whose only contribution is a .mcp.json with the real server-everything.
func (e *serveEnv) installClaudeMCP(node, entry string) {
	e.t.Helper()
	src := e.t.TempDir()
	mcp, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}}})
	for name, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name":"mcp-kit","version":"1.0.0","description":"A Claude Code plugin with an MCP server"}`,
		".mcp.json":                  string(mcp),
	} {
		p := filepath.Join(src, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	installSource(e.t, e.home, src)
}

// TestClaudeMCPServersStartInEveryFrontEnd: a Claude package's .mcp.json
// server starts with the session in serve and chat alike (Claude Code
// starts an enabled plugin's servers; the install preview listed it),
// and on a cold schema cache the first prompt waits for it, so the
// model's first call of one of its tools works instead of finding no
// tool of that name (issue 27 item 12).
func TestClaudeMCPServersStartInEveryFrontEnd(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	const call = `call mcp__everything__echo {"message": "hi from a Claude plugin"}`
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, e *serveEnv) string
	}{
		{"serve", func(t *testing.T, e *serveEnv) string {
			c := e.start()
			initialized(t, c, clientCaps(fullRx(), nil))
			sid := newSession(t, c)
			r := prompt(t, c, sid, call)
			if r.StopReason != "end_turn" {
				t.Errorf("turn = %+v", r)
			}
			if p := pluginOf(t, c, "mcp-kit"); len(p.Contents.McpServers) != 1 || p.Contents.McpServers[0].State != "ready" {
				t.Errorf("rx/plugins mcp-kit = %+v", p.Contents.McpServers)
			}
			shutdownExit(t, c)
			return r.Text
		}},
		{"chat", func(t *testing.T, e *serveEnv) string {
			getenv := func(k string) string {
				if k == "RX_BRIDGE_HOME" {
					return e.home
				}
				return ""
			}
			code, stdout, stderr := chatRun(t, getenv, "", "--workspace", e.ws, "--approval", "yolo", "--prompt", call)
			if code != 0 {
				t.Fatalf("chat: exit %d\n%s\n%s", code, stdout, stderr)
			}
			return stdout + stderr
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t, "echo-provider")
			e.installClaudeMCP(node, entry)
			e.writeConfig("model = \"" + echoSmall + "\"\n")
			out := tc.run(t, e)
			if !strings.Contains(out, "Echo: hi from a Claude plugin") {
				t.Errorf("the first prompt did not reach the server's tool:\n%s", out)
			}
		})
	}
}
