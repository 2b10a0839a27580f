package acp

import (
	"context"
	"os"
	"path/filepath"
	"testing"

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
