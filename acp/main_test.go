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
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	if f, err := os.OpenFile(marker, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
		_, _ = f.WriteString("exit\n")
		_ = f.Close()
	}
}
