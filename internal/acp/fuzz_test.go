package acp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// FuzzClientInput: what an ACP client sends in session/prompt and
// session/new (prompt blocks, MCP server specs) and what it answers to an
// elicitation or a terminal's wait and output, decoded by the SDK's
// types, never panics our conversions; a server spec is either refused
// with an error or converted with its name and transport kept; only an
// accepted elicitation answers; a terminal result that names no exit
// code and no signal is an error, never a success.
func FuzzClientInput(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"text","text":"/hello:greet name=Ada x"},{"type":"resource_link","uri":"file:///a","name":"a"},{"type":"resource","resource":{"uri":"file:///b","text":"B"}}]}`),
		[]byte(`[{"name":"p","command":"/bin/p","args":["-x"],"env":[{"name":"K","value":"v"}]},{"type":"http","name":"h","url":"http://127.0.0.1:1/mcp","headers":[{"name":"A","value":"b"}]}]`))
	f.Add([]byte(`{"action":"accept","content":{"value":"Grace","tags":["a"],"ok":true,"n":3}}`), []byte(`{"output":"x","truncated":true,"exitStatus":{"signal":"SIGKILL"}}`))
	f.Add([]byte(`{"action":"_custom","content":{"v":1}}`), []byte(`{"output":"","truncated":false,"exitStatus":{"exitCode":3}}`))
	f.Add([]byte(`{"sessionId":"s","prompt":[{"type":"image","data":"","mimeType":"image/png"}]}`), []byte(`[{"type":"sse","name":"","url":""},{"name":"e","command":"c","args":[],"env":[{"name":"","value":""}]}]`))
	f.Fuzz(func(t *testing.T, prompt, servers []byte) {
		answers(t, prompt)
		answers(t, servers)
		var req acpsdk.PromptRequest
		if json.Unmarshal(prompt, &req) == nil {
			text := flatten(req.Prompt)
			if strings.TrimSpace(text) != text {
				t.Errorf("flatten %q is not trimmed", text)
			}
			_ = agent.ActionArgs(strings.Fields(text))
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

// answers runs b through the decoders of an elicitation's answer and a
// terminal's result.
func answers(t *testing.T, b []byte) {
	var el acpsdk.UnstableCreateElicitationResponse
	if json.Unmarshal(b, &el) == nil {
		a := elicitAnswer(el)
		if a.Cancelled != (el.Accept == nil || el.Accept.Action != "accept") {
			t.Errorf("%s: cancelled %v", b, a.Cancelled)
		}
		for k, v := range a.Values {
			if !json.Valid(v) {
				t.Errorf("%s: value %s of %q is not JSON", b, v, k)
			}
		}
	}
	var out acpsdk.TerminalOutputResponse
	if json.Unmarshal(b, &out) == nil {
		var st acpsdk.TerminalExitStatus
		if out.ExitStatus != nil {
			st = *out.ExitStatus
		}
		res, _, err := exitResult(tools.CommandResult{Output: out.Output}, st)
		named := (st.Signal != nil && *st.Signal != "") || st.ExitCode != nil
		if named == (err != nil) {
			t.Errorf("%s: err %v", b, err)
		}
		if err == nil && res.Signal == "" && st.ExitCode != nil && res.ExitCode != *st.ExitCode {
			t.Errorf("%s: exit %d", b, res.ExitCode)
		}
	}
}
