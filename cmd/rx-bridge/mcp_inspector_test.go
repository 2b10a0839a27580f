package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// inspector is the MCP Inspector's CLI as make mcp-inspector-setup
// installs it: Node 24 and the launcher. A test that needs it fails,
// naming the install command, when it is not there.
func inspector(t *testing.T) (node, entry string) {
	t.Helper()
	dir := filepath.Join(examplestest.RepoRoot(t), "internal", "mcpserve", "testdata", "inspector")
	node = filepath.Join(dir, "node_modules", ".bin", "node24")
	entry = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	for _, p := range []string{node, entry} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the MCP Inspector is not installed (%v): run `make mcp-inspector-setup` (internal/mcpserve/testdata/inspector/setup.sh)", err)
		}
	}
	return node, entry
}

// runInspector runs the Inspector's CLI with args and decodes its JSON
// output into out; it returns the exit code.
func runInspector(t *testing.T, ctx context.Context, args []string, out any) int {
	t.Helper()
	node, entry := inspector(t)
	cmd := exec.CommandContext(ctx, node, append([]string{entry, "--cli"}, args...)...)
	cmd.Dir = t.TempDir()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("inspector %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	if err := json.Unmarshal(stdout, out); err != nil {
		t.Fatalf("inspector %v (exit %d): output is not JSON: %v\nstdout: %s\nstderr: %s", args, code, err, stdout, stderr.String())
	}
	return code
}

// mcpWrapper is a script that starts this test binary as
// `rx-bridge mcp --home home`: the Inspector launches a command, and
// passes its own choice of environment.
func mcpWrapper(t *testing.T, home string) string {
	t.Helper()
	script := filepath.Join(t.TempDir(), "rx-bridge-mcp")
	body := fmt.Sprintf("#!/bin/sh\nRX_BRIDGE_TEST_HELPER=1 GORACE='atexit_sleep_ms=0' exec %q '-test.run=^TestHelperProcess$' -- mcp --home %q --workspace %q \"$@\"\n", os.Args[0], home, t.TempDir())
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}

type inspectorText struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	IsError bool `json:"isError"`
}

// TestMCPInspector drives `rx-bridge mcp` on stdio, then on streamable
// HTTP, with the MCP Inspector's CLI (a client nobody here wrote, which
// declares no elicitation).
func TestMCPInspector(t *testing.T) {
	t.Parallel()
	inspector(t)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.UntilDeadline(t, testenv.Scale(3*time.Minute)))
	defer cancel()
	server := mcpWrapper(t, mcpHome(t))

	var tools struct {
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"tools"`
	}
	if code := runInspector(t, ctx, []string{server, "--method", "tools/list"}, &tools); code != 0 || len(tools.Tools) != 1 || tools.Tools[0].Name != "hello_greet" {
		t.Fatalf("tools/list (exit %d) = %+v", code, tools)
	}

	var call inspectorText
	runInspector(t, ctx, []string{server, "--method", "tools/call", "--tool-name", "hello_greet"}, &call)
	if !call.IsError || len(call.Content) != 1 || !strings.Contains(call.Content[0].Text, "does not support elicitation") || !strings.Contains(call.Content[0].Text, "How should I greet you?") {
		t.Errorf("tools/call hello_greet without elicitation = %+v", call)
	}

	var prompts struct {
		Prompts []struct {
			Name string `json:"name"`
		} `json:"prompts"`
	}
	runInspector(t, ctx, []string{server, "--method", "prompts/list"}, &prompts)
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if strings.Join(names, " ") != "claude-kit:git:summary claude-kit:review hi-kit:hi" {
		t.Errorf("prompts/list = %v", names)
	}
	var prompt struct {
		Messages []struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	runInspector(t, ctx, []string{server, "--method", "prompts/get", "--prompt-name", "claude-kit:review", "--prompt-args", "file=main.go", "focus=errors"}, &prompt)
	if len(prompt.Messages) != 1 || !strings.Contains(prompt.Messages[0].Content.Text, "Review the file main.go") || !strings.Contains(prompt.Messages[0].Content.Text, "main.go errors") {
		t.Errorf("prompts/get claude-kit:review = %+v", prompt)
	}

	var read struct {
		Contents []struct {
			URI  string `json:"uri"`
			Text string `json:"text"`
		} `json:"contents"`
	}
	runInspector(t, ctx, []string{server, "--method", "resources/read", "--uri", "rx-bridge://skill/claude-kit:summarize"}, &read)
	if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "three bullet points") {
		t.Errorf("resources/read = %+v", read)
	}

	// Streamable HTTP on a loopback port the server picks.
	cmd := rxBridgeCommand("mcp", "--home", mcpHome(t), "--workspace", t.TempDir(), "--http", "127.0.0.1:0")
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`serving streamable HTTP on (http://\S+)`)
		lines := bufio.NewScanner(errPipe)
		for lines.Scan() {
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var url string
	select {
	case url = <-addr:
	case <-ctx.Done():
		t.Fatal("rx-bridge mcp --http never said where it serves")
	}
	tools.Tools = nil
	if code := runInspector(t, ctx, []string{url + "mcp", "--transport", "http", "--method", "tools/list"}, &tools); code != 0 || len(tools.Tools) != 1 || tools.Tools[0].Name != "hello_greet" {
		t.Fatalf("tools/list over HTTP (exit %d) = %+v", code, tools)
	}
	call = inspectorText{}
	runInspector(t, ctx, []string{url + "mcp", "--transport", "http", "--method", "tools/call", "--tool-name", "hello_greet"}, &call)
	if !call.IsError || !strings.Contains(call.Content[0].Text, "does not support elicitation") {
		t.Errorf("tools/call over HTTP = %+v", call)
	}
}
