package acp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"
)

// FuzzClientInput: what an ACP client sends in session/prompt and
// session/new (prompt blocks, MCP server specs), decoded by the SDK's
// types, never panics our conversions; a server spec is either refused
// with an error or converted with its name and transport kept.
func FuzzClientInput(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"/hello:greet name=Ada x"},{"type":"resource_link","uri":"file:///a","name":"a"},{"type":"resource","resource":{"uri":"file:///b","text":"B"}}]}`),
		[]byte(`[{"name":"p","command":"/bin/p","args":["-x"],"env":[{"name":"K","value":"v"}]},{"type":"http","name":"h","url":"http://127.0.0.1:1/mcp","headers":[{"name":"A","value":"b"}]}]`))
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"image","data":"","mimeType":"image/png"}]}`), []byte(`[{"type":"sse","name":"","url":""},{"name":"e","command":"c","args":[],"env":[{"name":"","value":""}]}]`))
	f.Fuzz(func(t *testing.T, prompt, servers []byte) {
		var req acpsdk.PromptRequest
		if json.Unmarshal(prompt, &req) == nil {
			text := flatten(req.Prompt)
			if strings.TrimSpace(text) != text {
				t.Errorf("flatten %q is not trimmed", text)
			}
			_ = actionArgs(strings.Fields(text))
		}
		var list []acpsdk.McpServer
		if json.Unmarshal(servers, &list) != nil {
			return
		}
		out, err := mcpServers(list, t.TempDir())
		if err != nil {
			if !utf8.ValidString(err.Error()) && utf8.Valid(servers) {
				t.Errorf("error text is not UTF-8: %q", err)
			}
			return
		}
		if len(out) != len(list) {
			t.Errorf("%d specs became %d servers", len(list), len(out))
		}
		for _, s := range out {
			if s.Name == "" {
				t.Errorf("a server without a name was accepted: %+v", s)
			}
		}
	})
}
