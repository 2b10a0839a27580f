package mcphost

import (
	"encoding/json"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run the reference MCP server of the MCP project,
// @modelcontextprotocol/server-everything (pinned in testdata/setup.sh),
// as a stdio server and over Streamable HTTP and SSE.

func everythingChecks(t *testing.T, h *Host, name string) {
	t.Helper()
	ctx := ctxT(t)
	n, err := h.Connect(ctx, name)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	tools := h.Tools()
	names := toolNames(tools)
	for _, want := range []string{"mcp__" + name + "__echo", "mcp__" + name + "__get-sum"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	// Tools only grow here: server-everything adds the tools that need
	// client capabilities after the handshake (tools/list_changed).
	if n == 0 || n > len(tools) {
		t.Errorf("Connect counted %d tools, Tools has %d", n, len(tools))
	}
	for _, tl := range tools {
		if tl.Placeholder || !json.Valid(tl.InputSchema) || tl.Server != name {
			t.Errorf("tool %+v", tl)
		}
		if tl.RawName == "echo" && (!tl.ReadOnly || tl.Destructive) {
			t.Errorf("echo is annotated read-only, got ReadOnly=%v Destructive=%v", tl.ReadOnly, tl.Destructive)
		}
	}
	r, err := h.Call(ctx, "mcp__"+name+"__echo", json.RawMessage(`{"message":"hi there"}`))
	if err != nil || r.Text != "Echo: hi there" || r.IsError {
		t.Errorf("echo = %+v, %v", r, err)
	}
	r, err = h.Call(ctx, "mcp__"+name+"__get-sum", json.RawMessage(`{"a":2,"b":40}`))
	if err != nil || !strings.Contains(r.Text, "42") {
		t.Errorf("get-sum = %+v, %v", r, err)
	}
	// A call the server rejects (a missing required argument) is the
	// server's answer, not a failure of the server.
	r, err = h.Call(ctx, "mcp__"+name+"__get-sum", json.RawMessage(`{"a":"x"}`))
	if err == nil && !r.IsError {
		t.Errorf("get-sum with bad arguments = %+v", r)
	}
	prompts := h.Prompts()
	var found bool
	for _, p := range prompts {
		if p.Name == "mcp__"+name+"__args-prompt" {
			found = true
			if len(p.Arguments) != 2 || p.Arguments[0].Name != "city" || !p.Arguments[0].Required {
				t.Errorf("args-prompt arguments = %+v", p.Arguments)
			}
		}
	}
	if !found {
		t.Fatalf("prompts %+v lack args-prompt", prompts)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"Paris"}, "What's weather in Paris?"},
		{[]string{"Springfield", "Illinois"}, "What's weather in Springfield, Illinois?"},
		{[]string{"Kansas", "City", "Missouri"}, "What's weather in Kansas, City Missouri?"},
	} {
		got, err := h.GetPrompt(ctx, "/mcp__"+name+"__args-prompt", c.args)
		if err != nil || got != c.want {
			t.Errorf("GetPrompt(%q) = %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	if got, err := h.GetPrompt(ctx, "mcp__"+name+"__simple-prompt", nil); err != nil || got != "This is a simple prompt without arguments." {
		t.Errorf("simple-prompt = %q, %v", got, err)
	}
	if _, err := h.GetPrompt(ctx, "mcp__"+name+"__args-prompt", nil); err == nil || !strings.Contains(err.Error(), `missing required argument "city"`) {
		t.Errorf("args-prompt without city: %v", err)
	}
	if st := h.Status(); len(st) != 1 || st[0].State != StateReady || st[0].Tools != len(h.Tools()) || st[0].Prompts != len(prompts) {
		t.Errorf("Status = %+v", st)
	}
	// It speaks a newer protocol than the reference's pinned one.
	if st := h.Status(); st[0].Protocol <= fallbackVersion || !slices.Contains(mcp.SupportedProtocolVersions(), st[0].Protocol) {
		t.Errorf("agreed protocol %q", st[0].Protocol)
	}
	t.Logf("protocol %s", h.Status()[0].Protocol)
}

func TestServerEverythingStdio(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	env := map[string]string{"MCPHOST_TEST_SET": "from-host"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	srv := Server{Name: "everything", Command: node, Args: []string{entry, "stdio"}, Source: SourceUser,
		Env: map[string]string{"GREETING": "${MCPHOST_TEST_UNSET:-hello-default}", "FROM_HOST": "${MCPHOST_TEST_SET}", "EMPTY": "${MCPHOST_TEST_UNSET}"}}
	ws, other := t.TempDir(), t.TempDir()
	h, n, procs := newHost(t, []Server{srv}, Options{Getenv: getenv, Workspace: ws, Client: Client{Roots: []string{ws, other}}})
	everythingChecks(t, h, "everything")

	// The workspace's folders are the client's roots: server-everything adds
	// get-roots-list for a client with roots (announcing it with
	// tools/list_changed) and asks for them with roots/list.
	if !slices.Contains(toolNames(h.Tools()), "mcp__everything__get-roots-list") {
		n.waitFor(t, "everything now has")
	}
	r, err := h.Call(ctxT(t), "mcp__everything__get-roots-list", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "URI: "+fileURI(ws)) || !strings.Contains(r.Text, "URI: "+fileURI(other)) || !strings.Contains(r.Text, "(2 total)") {
		t.Errorf("get-roots-list = %+v, %v", r, err)
	}

	// Environment values are expanded at connect time (${VAR},
	// ${VAR:-default}, unset → empty) and reach the process.
	r, err = h.Call(ctxT(t), "mcp__everything__get-env", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(r.Text), &got); err != nil {
		t.Fatalf("get-env: %v in %.200q", err, r.Text)
	}
	if got["GREETING"] != "hello-default" || got["FROM_HOST"] != "from-host" || got["EMPTY"] != "" {
		t.Errorf("server env GREETING=%q FROM_HOST=%q EMPTY=%q", got["GREETING"], got["FROM_HOST"], got["EMPTY"])
	}
	pids := processTree(procs.all()[0].Pid())
	h.Close()
	procs.assertReaped(t)
	assertGone(t, pids)
}

// startEverythingHTTP runs server-everything in an HTTP mode on a free
// loopback port and returns its base URL once it accepts connections.
func startEverythingHTTP(t *testing.T, mode string) string {
	t.Helper()
	node, entry := serverEverything(t)
	var port int
	for attempt := 0; ; attempt++ {
		port = freePort(t)
		cmd := exec.Command(node, entry, mode)
		cmd.Env = append(cmd.Environ(), "PORT="+strconv.Itoa(port))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		t.Cleanup(func() { cmd.Process.Kill(); <-exited })
		// Wait until it listens (or has exited: the port was taken).
		for {
			c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
			if err == nil {
				c.Close()
				return fmt.Sprintf("http://127.0.0.1:%d", port)
			}
			select {
			case <-exited:
			case <-time.After(50 * time.Millisecond):
				continue
			}
			break
		}
		if attempt == 3 {
			t.Fatalf("server-everything %s did not start", mode)
		}
	}
}

func TestServerEverythingStreamableHTTP(t *testing.T) {
	t.Parallel()
	base := startEverythingHTTP(t, "streamableHttp")
	h, _, _ := newHost(t, []Server{{Name: "everything", URL: base + "/mcp", Source: SourceUser}}, Options{})
	everythingChecks(t, h, "everything")
}

func TestServerEverythingSSE(t *testing.T) {
	t.Parallel()
	base := startEverythingHTTP(t, "sse")
	h, _, _ := newHost(t, []Server{{Name: "everything", Type: "sse", URL: base + "/sse", Source: SourceUser}}, Options{})
	everythingChecks(t, h, "everything")
}
