package acp

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpServerEnv set makes this test binary an MCP server on stdin/stdout
// (real process, real pipes) instead of running the tests; its value is
// a file it appends "exit" to once its client closed it.
const mcpServerEnv = "ACP_TEST_MCP_SERVER"

func TestMain(m *testing.M) {
	if marker := os.Getenv(mcpServerEnv); marker != "" {
		runMCPServer(marker)
		return
	}
	if os.Getenv(routerSidecarEnv) != "" {
		runRouterSidecar()
		return
	}
	os.Exit(m.Run())
}

// runMCPServer serves one tool, shout, which upper-cases its text.
func runMCPServer(marker string) {
	s := mcp.NewServer(&mcp.Implementation{Name: "acp-test", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	s.AddTool(&mcp.Tool{Name: "shout", Description: "upper-cases text", InputSchema: schema},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Text string }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(a.Text) + "!"}}}, nil
		})
	// reveal echoes the value of the environment variable it is named
	// and the server's arguments; reveal_error the same as a tool error.
	reveal := func(isErr bool) mcp.ToolHandler {
		return func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Name string }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			text := "config " + a.Name + "=" + os.Getenv(a.Name) + " args " + strings.Join(os.Args[1:], " ")
			return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
		}
	}
	nameSchema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
	s.AddTool(&mcp.Tool{Name: "reveal", Description: "echoes an env value", InputSchema: nameSchema}, reveal(false))
	s.AddTool(&mcp.Tool{Name: "reveal_error", Description: "fails with an env value", InputSchema: nameSchema}, reveal(true))
	// brief is a prompt; add_prompt adds another (prompts/list_changed).
	s.AddPrompt(&mcp.Prompt{Name: "brief", Description: "Brief someone", Arguments: []*mcp.PromptArgument{{Name: "topic", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Brief me on " + r.Params.Arguments["topic"]}}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "add_prompt", Description: "adds the prompt later", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddPrompt(&mcp.Prompt{Name: "later"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "later"}}}}, nil
			})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil
		})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	if f, err := os.OpenFile(marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		_, _ = f.WriteString("exit\n")
		_ = f.Close()
	}
}
