package acp

import (
	"encoding/json"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestLargeResourceThenMorePrompts (issue 29 item 3): after a prompt with
// a 5 MiB embedded resource in a plugin-provider session (which the echo
// model answers with as much again), later prompts still run: a plugin
// provider's request is one 8 MiB frame, so earlier messages are left out
// of it, with a warning, instead of failing every later turn. A prompt
// whose own resource is over that limit is refused (-32602 naming it),
// and the session goes on.
func TestLargeResourceThenMorePrompts(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	withResource := func(n int) map[string]json.RawMessage {
		return e.raw(t, "session/prompt", map[string]any{"sessionId": sess.SessionId, "prompt": []any{
			map[string]any{"type": "text", "text": "summarize"},
			map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///big.txt", "text": strings.Repeat("y", n)}},
		}})
	}
	if res := withResource(5 << 20); res["error"] != nil {
		t.Fatalf("a prompt with a 5 MiB resource: %s", res["error"])
	}
	for i := range 2 {
		if r, err := e.prompt(t, sess.SessionId, "and then"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
			t.Fatalf("prompt %d after the 5 MiB one: %+v %v", i+2, r, err)
		}
	}
	if text := messages(e.client); !strings.Contains(text, "of earlier messages were left out of this request") {
		t.Errorf("no warning that earlier messages were left out: %.300q", text)
	}
	res := withResource(9 << 20)
	var rpcErr struct {
		Code    int
		Message string
	}
	if json.Unmarshal(res["error"], &rpcErr) != nil || rpcErr.Code != codeInvalidParams || !strings.Contains(rpcErr.Message, "at most 8 MiB per request") {
		t.Errorf("a prompt with a 9 MiB resource answered %s %s, want -32602 naming the 8 MiB limit", res["result"], res["error"])
	}
	if r, err := e.prompt(t, sess.SessionId, "still here"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("a prompt after the refused one: %+v %v", r, err)
	}
}
