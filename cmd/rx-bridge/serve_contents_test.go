package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// actionsOf is rx/actions by name.
func actionsOf(t *testing.T, c *lspclient.Client) map[string]rxproto.Action {
	t.Helper()
	var list rxproto.ActionList
	if err := c.Call(ctxT(t), "rx/actions", nil, &list); err != nil {
		t.Fatal(err)
	}
	out := map[string]rxproto.Action{}
	for _, a := range list.Actions {
		out[a.Name] = a
	}
	return out
}

// pluginOf is plugin name in rx/plugins.
func pluginOf(t *testing.T, c *lspclient.Client, name string) rxproto.PluginInfo {
	t.Helper()
	var res rxproto.PluginsResult
	if err := c.Call(ctxT(t), "rx/plugins", nil, &res); err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Plugins {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("rx/plugins lacks %s: %+v", name, res.Plugins)
	return rxproto.PluginInfo{}
}

// userMessages are the user_message_chunk texts of session id.
func userMessages(c *lspclient.Client, id string) []string {
	var out []string
	for _, m := range c.Messages("rx/session/update") {
		var u struct {
			SessionID string
			Update    struct {
				SessionUpdate string
				Content       struct{ Text string }
			}
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID == id && u.Update.SessionUpdate == "user_message_chunk" {
			out = append(out, u.Update.Content.Text)
		}
	}
	return out
}

// TestServeSlashCommands: a package's commands, prompts, skills and
// agents are in rx/actions as kind command with their descriptions and
// argument hints (beside the UI actions, kind action), and in rx/plugins
// under the plugin; a prompt typed as /kit:review main.go runs a turn
// whose model input is the expanded text while the chat shows the typed
// line; a typed /hello:greet runs the UI action.
func TestServeSlashCommands(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider", "hello")
	installKit(t, e.home)
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	ui := &scriptedUI{answers: map[string]any{"value@How should I greet you?": "pirate", "value@Your name": "Ada"}}
	c.Handle("rx/ui/request", ui.handle)
	initialized(t, c, clientCaps(fullRx(), nil))

	got := actionsOf(t, c)
	for name, want := range map[string]rxproto.Action{
		"/kit:review":         {Kind: rxproto.ActionKindCommand, Source: rxproto.CommandSourceCommand, Plugin: "kit", ActionID: "kit:review", Description: "Review a file", ArgumentHint: "<file>"},
		"/kit:explain":        {Kind: rxproto.ActionKindCommand, Source: rxproto.CommandSourcePrompt, Plugin: "kit", ActionID: "kit:explain", Description: "Explain something"},
		"/kit:sub:deep":       {Kind: rxproto.ActionKindCommand, Source: rxproto.CommandSourceCommand, Plugin: "kit", ActionID: "kit:sub:deep"},
		"/kit:plan":           {Kind: rxproto.ActionKindCommand, Source: rxproto.CommandSourceSkill, Plugin: "kit", ActionID: "kit:plan", Description: "Plan the work"},
		"/kit:agent:reviewer": {Kind: rxproto.ActionKindCommand, Source: rxproto.CommandSourceAgent, Plugin: "kit", ActionID: "kit:agent:reviewer", Description: "Reviews diffs"},
		"/hello:greet":        {Kind: rxproto.ActionKindAction, Plugin: "hello", ActionID: "greet", Label: got["/hello:greet"].Label},
	} {
		want.Name = name
		if got[name] != want {
			t.Errorf("rx/actions %s = %+v\nwant %+v", name, got[name], want)
		}
	}
	if _, ok := got["/kit:review"]; !ok {
		t.Fatalf("rx/actions = %+v", got)
	}

	kit := pluginOf(t, c, "kit")
	var names []string
	for _, l := range [][]rxproto.ContentItem{kit.Contents.Commands, kit.Contents.Skills, kit.Contents.Agents} {
		for _, it := range l {
			names = append(names, it.Name)
		}
	}
	if strings.Join(names, " ") != "/kit:explain /kit:review /kit:sub:deep /kit:plan /kit:agent:reviewer" {
		t.Errorf("rx/plugins kit contents = %+v", kit.Contents)
	}

	sid := newSession(t, c)
	if r := prompt(t, c, sid, "/kit:review main.go"); r.StopReason != "end_turn" || r.Text != "Review main.go carefully." {
		t.Fatalf("/kit:review turn = %+v", r)
	}
	if um := userMessages(c, sid); len(um) == 0 || um[0] != "/kit:review main.go" {
		t.Errorf("the chat shows the user's message as %q", um)
	}
	// A line no command, skill or MCP prompt owns but a UI action does
	// runs that action with its arguments (k=v pairs, other words
	// arg1, …), and the action's message is the turn's text, which the
	// model gets (the engine's one rule, the reference's
	// invokeExtensionAction); the chat shows the typed line.
	if r := prompt(t, c, sid, "/hello:greet name=Bo"); r.StopReason != "end_turn" || r.Text != "Ahoy, Ada!" {
		t.Errorf("/hello:greet in the chat = %+v", r)
	}
	if um := userMessages(c, sid); len(um) < 2 || um[len(um)-1] != "/hello:greet name=Bo" {
		t.Errorf("the chat shows the user's messages as %q", um)
	}
	ui.mu.Lock()
	if n := len(ui.seen); n == 0 || len(ui.seen[n-1].Fields) != 1 || ui.seen[n-1].Fields[0].Default != "Bo" {
		t.Errorf("the typed name=Bo did not reach the action: %+v", ui.seen)
	}
	ui.mu.Unlock()
	shutdownExit(t, c)
}

// serverEverything is the installed @modelcontextprotocol/server-everything
// entry point and node (make mcp-setup installs it).
func serverEverything(t *testing.T) (node, entry string) {
	t.Helper()
	dir := os.Getenv("RX_MCP_CACHE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "rx-bridge-mcp")
	}
	entry = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed (%s): run `make mcp-setup` (mcphost/testdata/setup.sh)", entry)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH: %v", err)
	}
	return node, entry
}

// TestServeMCPServer: a package's MCP server (the real server-everything
// over stdio) shows in rx/plugins with its state and tool count, its
// prompts become slash commands in rx/actions with their arguments as the
// hint, and the model calls one of its tools in a turn.
func TestServeMCPServer(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	e := newServeEnv(t, "echo-provider")
	installManifest(t, e.home, map[string]any{
		"apiVersion": "reasonix.io/plugin/v1", "name": "tools", "version": "1.0.0",
		"contributes": map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}}},
	})
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))

	var srv rxproto.McpServerInfo
	for {
		p := pluginOf(t, c, "tools")
		if len(p.Contents.McpServers) != 1 {
			t.Fatalf("rx/plugins tools = %+v", p.Contents)
		}
		srv = p.Contents.McpServers[0]
		if srv.State == "ready" || srv.State == "failed" {
			break
		}
		select {
		case <-ctxT(t).Done():
			t.Fatalf("the server never got ready: %+v", srv)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if srv.Name != "everything" || srv.Transport != "stdio" || srv.State != "ready" || srv.Tools == 0 || srv.Prompts == 0 || !strings.Contains(srv.Target, node) {
		t.Fatalf("rx/plugins MCP server = %+v", srv)
	}
	// Its prompts came with the tools: rx/actionsChanged told the editor.
	var args rxproto.Action
	for {
		if a, ok := actionsOf(t, c)["/mcp__everything__args-prompt"]; ok {
			args = a
			break
		}
		if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
			t.Fatalf("no MCP prompt in rx/actions: %v", err)
		}
	}
	if args.Kind != rxproto.ActionKindCommand || args.Source != rxproto.CommandSourceMcpPrompt || args.Plugin != "tools" || args.ArgumentHint != "<city> [state]" {
		t.Errorf("rx/actions args-prompt = %+v", args)
	}

	sid := newSession(t, c)
	r := prompt(t, c, sid, `call mcp__everything__echo {"message": "hi from the editor"}`)
	if r.StopReason != "end_turn" || !strings.Contains(r.Text, "Echo: hi from the editor") {
		t.Fatalf("MCP tool turn = %+v", r)
	}
	if kinds := strings.Join(updatesOf(c, sid), " "); !strings.Contains(kinds, "tool_call tool_call_update") {
		t.Errorf("updates = %s", kinds)
	}
	if r := prompt(t, c, sid, "/mcp__everything__args-prompt Paris"); r.Text != "What's weather in Paris?" {
		t.Errorf("MCP prompt turn = %+v", r)
	}
	shutdownExit(t, c)
}
