package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// mcpHome is a bridge home with examples/hello (an action that asks two
// questions) and examples/claude-kit (commands, a skill, an agent).
func mcpHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	examplestest.Install(t, home, "hello")
	installSource(t, home, filepath.Join(examplestest.RepoRoot(t), "examples", "claude-kit"))
	// hi-kit's command is a line hello's input.receive rewrites.
	hi := t.TempDir()
	for name, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name":"hi-kit","version":"1.0.0","description":"A command hello rewrites"}`,
		"commands/hi.md":             "---\ndescription: Greet someone\n---\n/hello $ARGUMENTS\n",
	} {
		p := filepath.Join(hi, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	installSource(t, home, hi)
	return home
}

// mcpSession starts `rx-bridge mcp` on home as a child process and
// connects the Go SDK's client to it with opts, asking for MCP version
// ("": the SDK's latest).
func mcpSession(t *testing.T, ctx context.Context, home string, opts *mcp.ClientOptions, version ...string) (*mcp.ClientSession, *mcp.CommandTransport) {
	t.Helper()
	cmd := rxBridgeCommand("mcp", "--home", home, "--workspace", t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &lockedWriter{b: &stderr}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rx-bridge mcp stderr:\n%s", stderr.String())
		}
	})
	tr := &mcp.CommandTransport{Command: cmd}
	var so *mcp.ClientSessionOptions
	if len(version) > 0 && version[0] != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: version[0]}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "rx-bridge-test", Version: "1"}, opts).Connect(ctx, tr, so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, tr
}

func resultText(r *mcp.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestMCPServerWithElicitation: on the SDK's latest protocol the
// questions are multi-round-trip input requests; on 2025-06-18 they are
// elicitation/create requests during the call.
func TestMCPServerWithElicitation(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("version="+version, func(t *testing.T) {
			t.Parallel()
			testMCPServerWithElicitation(t, version)
		})
	}
}

func testMCPServerWithElicitation(t *testing.T, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.UntilDeadline(t, testenv.Scale(2*time.Minute)))
	defer cancel()
	// The handler runs on the client's goroutines: asked and name are
	// under mu.
	var mu sync.Mutex
	var asked []string
	name := "Ada"
	decline := false
	toolsChanged := make(chan struct{}, 4)
	promptsChanged := make(chan struct{}, 4)
	cs, tr := mcpSession(t, ctx, mcpHome(t), &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			if decline {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			props, _ := req.Params.RequestedSchema.(map[string]any)["properties"].(map[string]any)
			content := map[string]any{}
			for key, p := range props {
				prop := p.(map[string]any)
				if enum, ok := prop["enum"].([]any); ok {
					content[key] = enum[2] // pirate
				} else {
					content[key] = name
				}
			}
			return &mcp.ElicitResult{Action: "accept", Content: content}, nil
		},
		ToolListChangedHandler:   func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
	}, version)
	if got := cs.InitializeResult().ProtocolVersion; version != "" && got != version {
		t.Fatalf("protocol version %s, want %s", got, version)
	}

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"hello_greet"}) {
		t.Fatalf("tools = %v, want [hello_greet]", names)
	}
	if d := tools.Tools[0].Description; !strings.Contains(d, "Greet me") || !strings.Contains(d, "/hello:greet") {
		t.Errorf("hello_greet description = %q", d)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet"})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || resultText(res) != "Ahoy, Ada!" {
		t.Fatalf("hello_greet = %+v %q, want Ahoy, Ada!", res.IsError, resultText(res))
	}
	mu.Lock()
	if len(asked) != 2 || !strings.Contains(asked[0], "hello: How should I greet you?") || !strings.Contains(asked[1], "Your name") {
		t.Errorf("elicitations = %q", asked)
	}
	mu.Unlock()
	// What the plugin says reaches the client redacted: a greeting that
	// echoes a token.
	const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	mu.Lock()
	name = token
	mu.Unlock()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet"})
	if err != nil || res.IsError || !strings.HasPrefix(resultText(res), "Ahoy, ") || strings.Contains(resultText(res), token) {
		t.Fatalf("hello_greet echoing a token = %v %q", err, resultText(res))
	}
	// A declined question: the action fails, which is an error result.
	mu.Lock()
	decline = true
	mu.Unlock()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet"})
	if err != nil || !res.IsError || !strings.Contains(resultText(res), "greeting cancelled") {
		t.Fatalf("hello_greet declined = %v %+v", err, res)
	}

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var review *mcp.Prompt
	var pnames []string
	for _, p := range prompts.Prompts {
		pnames = append(pnames, p.Name)
		if p.Name == "claude-kit:review" {
			review = p
		}
	}
	if review == nil {
		t.Fatalf("prompts = %v, want claude-kit:review among them", pnames)
	}
	if len(review.Arguments) != 2 || review.Arguments[0].Name != "file" || !review.Arguments[0].Required || review.Arguments[1].Name != "focus" || review.Arguments[1].Required {
		t.Errorf("review arguments = %+v", review.Arguments)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "claude-kit:review", Arguments: map[string]string{"file": "main.go", "focus": "errors"}})
	if err != nil {
		t.Fatal(err)
	}
	text := got.Messages[0].Content.(*mcp.TextContent).Text
	if !strings.Contains(text, "Review the file main.go for correctness") || !strings.Contains(text, "Everything the user asked for: main.go errors") {
		t.Errorf("review prompt text = %q", text)
	}
	// input.receive applies: hello rewrites a "/hello <who>" line.
	got, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "hi-kit:hi", Arguments: map[string]string{"arguments": "Grace"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := got.Messages[0].Content.(*mcp.TextContent).Text; text != "Please greet Grace warmly, in one sentence." {
		t.Errorf("hi prompt through hello's input.receive = %q", text)
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "claude-kit:review"}); err == nil || !strings.Contains(err.Error(), `"file" is required`) {
		t.Errorf("review without its file: %v", err)
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range resources.Resources {
		uris = append(uris, r.URI)
	}
	if !slices.Contains(uris, "rx-bridge://skill/claude-kit:summarize") {
		t.Fatalf("resources = %v", uris)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rx-bridge://skill/claude-kit:summarize"})
	if err != nil {
		t.Fatal(err)
	}
	if c := read.Contents[0]; c.MIMEType != "text/markdown" || !strings.Contains(c.Text, "# skill: summarize") {
		t.Errorf("skill resource = %+v", c)
	}

	// SIGHUP rebuilds the plugins: a new generation, whose lists the
	// client is told changed.
	if err := tr.Command.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []chan struct{}{toolsChanged, promptsChanged} {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatal("no list_changed after the reload")
		}
	}
	mu.Lock()
	decline = false
	mu.Unlock()
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet", Arguments: map[string]any{"name": "Grace"}})
	if err != nil || res.IsError {
		t.Fatalf("hello_greet after the reload: %v %q", err, resultText(res))
	}
}

func TestMCPServerWithoutElicitation(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), testenv.UntilDeadline(t, testenv.Scale(2*time.Minute)))
	defer cancel()
	home := t.TempDir()
	examplestest.Install(t, home, "hello")
	cs, _ := mcpSession(t, ctx, home, nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hello_greet"})
	if err != nil {
		t.Fatalf("a question the client cannot answer must be a tool error, not a protocol error: %v", err)
	}
	text := resultText(res)
	if !res.IsError || !strings.Contains(text, "does not support elicitation") || !strings.Contains(text, "How should I greet you?") {
		t.Fatalf("hello_greet without elicitation = %v %q", res.IsError, text)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope_nothing"}); err == nil && !res.IsError {
		t.Errorf("an unknown tool succeeded: %q", resultText(res))
	}
}
