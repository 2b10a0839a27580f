package acp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"
)

// dismissingClient answers every permission request {"outcome":
// "cancelled"}, as codecompanion's Cancel button does.
type dismissingClient struct{ *testClient }

func (c dismissingClient) RequestPermission(context.Context, acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}, nil
}

// TestDismissedPermissionDeclines (issue 29 item 4): a permission prompt
// the client answers "cancelled" declines that call, as Reasonix does
// and docs/ACP.md says; the turn goes on and ends end_turn. Only
// session/cancel cancels a turn.
func TestDismissedPermissionDeclines(t *testing.T) {
	t.Parallel()
	client := dismissingClient{&testClient{}}
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", client)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.prompt(t, sess.SessionId, `call apply_edit {"path":"a.txt","content":"beta"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("a dismissed permission prompt ended the turn %q, want end_turn", res.StopReason)
	}
	if client.asked != 1 {
		t.Errorf("asked %d times, want 1", client.asked)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err == nil {
		t.Error("the declined edit was written")
	}
}

// TestRelativeEditPermissionCarriesItsDiff (issue 29 item 2): an edit of
// a workspace-relative path — the form the tool schema asks the model to
// use — is asked about with its diff and an absolute location, so the
// user does not approve blind.
func TestRelativeEditPermissionCarriesItsDiff(t *testing.T) {
	t.Parallel()
	client := newGatedClient()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", client)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.prompt(t, sess.SessionId, `call apply_edit {"path":"notes.txt","content":"beta"}`)
		done <- err
	}()
	p := <-client.asked
	client.answer(t, false)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(e.ws, "notes.txt")
	var diff *acpsdk.ToolCallContentDiff
	for _, c := range p.ToolCall.Content {
		if c.Diff != nil {
			diff = c.Diff
		}
	}
	if diff == nil || diff.Path != want || diff.NewText != "beta" {
		t.Errorf("permission content %+v: want a diff of %s", p.ToolCall.Content, want)
	}
	if len(p.ToolCall.Locations) != 1 || p.ToolCall.Locations[0].Path != want {
		t.Errorf("permission locations %+v, want %s", p.ToolCall.Locations, want)
	}
}

// TestOversizeFrameIsAnsweredAndTheConnectionStays (issue 29 item 3): a
// prompt with a 20 MiB embedded resource gets an error naming the frame
// limit, and the connection and its sessions go on.
func TestOversizeFrameIsAnsweredAndTheConnectionStays(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 20<<20)
	res := e.raw(t, "session/prompt", map[string]any{"sessionId": sess.SessionId, "prompt": []any{
		map[string]any{"type": "resource", "resource": map[string]any{"uri": "file:///big.txt", "text": big}},
	}})
	var rpcErr struct {
		Code    int
		Message string
	}
	if err := json.Unmarshal(res["error"], &rpcErr); err != nil || rpcErr.Code != -32600 || !strings.Contains(rpcErr.Message, "frame limit of 10 MiB") {
		t.Errorf("over-size prompt answered %s", res["error"])
	}
	if r, err := e.prompt(t, sess.SessionId, "still here"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("a prompt after the over-size one: %+v, %v", r, err)
	}
}

// TestFrameID: the id of a frame too long to decode.
func TestFrameID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ head, tail, want string }{
		{`{"id":"raw-1","jsonrpc":"2.0","method":"session/prompt","params":{"x":"`, `"}}`, `"raw-1"`},
		{`{"jsonrpc":"2.0","id": 42,"method":`, ``, `42`},
		{`{"jsonrpc":"2.0","method":"session/prompt","params":{"t":"`, `xx"},"id":-7}`, `-7`},
		{`{"jsonrpc":"2.0","method":"x","params":{"t":"`, `"}}`, ``},
		{`{"id":"a\"b","m":1`, ``, `"a\"b"`},
	} {
		if got := string(frameID([]byte(tc.head), []byte(tc.tail))); got != tc.want {
			t.Errorf("frameID(%q, %q) = %q, want %q", tc.head, tc.tail, got, tc.want)
		}
	}
}

// TestSetModelIsServed (issue 29 item 5): session/set_model, which
// clients still send, sets the model as session/set_config_option does
// and answers {}; an unknown model is -32602.
func TestSetModelIsServed(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res := e.raw(t, "session/set_model", map[string]any{"sessionId": sess.SessionId, "modelId": "plugin/echo-provider/echo/large"})
	if string(res["result"]) != "{}" {
		t.Fatalf("session/set_model answered %s %s", res["result"], res["error"])
	}
	// The update comes through the SDK's client, the raw answer around
	// it: wait for it.
	waitSeen(t, e, "a config_option_update with the model", func(u acpsdk.SessionUpdate) bool {
		return u.ConfigOptionUpdate != nil && current(u.ConfigOptionUpdate.ConfigOptions)["model"] == "plugin/echo-provider/echo/large"
	})
	res = e.raw(t, "session/set_model", map[string]any{"sessionId": sess.SessionId, "modelId": "nope/none"})
	var rpcErr struct{ Code int }
	if json.Unmarshal(res["error"], &rpcErr) != nil || rpcErr.Code != -32602 {
		t.Errorf("an unknown model answered %s %s", res["result"], res["error"])
	}
}

// TestNewSessionWithMissingCwd (issue 29 item 5): a cwd that does not
// exist is the client's mistake: -32602 naming the path.
func TestNewSessionWithMissingCwd(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	missing := filepath.Join(e.ws, "no such dir")
	res := e.raw(t, "session/new", map[string]any{"cwd": missing, "mcpServers": []any{}})
	var rpcErr struct {
		Code    int
		Message string
	}
	if json.Unmarshal(res["error"], &rpcErr) != nil || rpcErr.Code != -32602 || !strings.Contains(rpcErr.Message, missing) {
		t.Errorf("session/new in a missing cwd answered %s %s", res["result"], res["error"])
	}
}

// TestMalformedLinesAreAnswered (issue 29 item 5): a line that is not
// JSON is answered -32700, a batch or a bare value -32600, each with a
// null id (JSON-RPC 2.0), and the connection goes on. So is a request
// whose id is null.
func TestMalformedLinesAreAnswered(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	for _, tc := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{`not json at all`, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"session/new","params":{}}]`, -32600},
		{`42`, -32600},
		// id null is a request JSON-RPC 2.0 discourages, not a notification:
		// answered, not run silently.
		{`{"jsonrpc":"2.0","id":null,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}`, -32600},
		{`{"jsonrpc":"2.0","ID":null,"method":"session/set_model","params":{}}`, -32600},
	} {
		if _, err := e.in.Write([]byte(tc.line + "\n")); err != nil {
			t.Fatal(err)
		}
		var got struct {
			ID    json.RawMessage
			Error struct{ Code int }
		}
		select {
		case raw := <-e.nulls:
			if json.Unmarshal(raw, &got) != nil || got.Error.Code != tc.code || string(got.ID) != "null" {
				t.Errorf("%s: answered %s, want code %d with a null id", tc.line, raw, tc.code)
			}
		case <-ctxT(t).Done():
			t.Fatalf("%s: no answer", tc.line)
		}
	}
	if _, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Errorf("the connection after malformed lines: %v", err)
	}
}

// waitSeen waits until the client has seen an update for which ok holds.
func waitSeen(t *testing.T, e *serveEnv, what string, ok func(acpsdk.SessionUpdate) bool) {
	t.Helper()
	ctx := ctxT(t)
	for {
		for _, u := range e.client.seen() {
			if ok(u) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("never saw %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestModeIsAConfigOption (issue 29 item 6): the mode is among the
// configOptions (category mode), so clients that show only those can
// switch to plan mode; setting it sends current_mode_update, and plan
// mode then refuses an edit.
func TestModeIsAConfigOption(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "tool_approval = \"yolo\"\n", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	var mode *acpsdk.SessionConfigOptionSelect
	for _, o := range sess.ConfigOptions {
		if o.Select != nil && o.Select.Id == "mode" {
			mode = o.Select
		}
	}
	if mode == nil || mode.Category == nil || *mode.Category != acpsdk.SessionConfigOptionCategoryMode || mode.CurrentValue != "normal" {
		t.Fatalf("configOptions have no mode option in category mode: %+v", sess.ConfigOptions)
	}
	got, err := e.set(t, sess.SessionId, "mode", "plan")
	if err != nil || got["mode"] != "plan" {
		t.Fatalf("set mode plan: %v %v", got, err)
	}
	waitSeen(t, e, "current_mode_update plan", func(u acpsdk.SessionUpdate) bool {
		return u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeId == "plan"
	})
	if _, err := e.prompt(t, sess.SessionId, `call apply_edit {"path":"a.txt","content":"x"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "a.txt")); err == nil {
		t.Error("plan mode set as a config option let an edit through")
	}
	if _, err := e.set(t, sess.SessionId, "mode", "goal"); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
