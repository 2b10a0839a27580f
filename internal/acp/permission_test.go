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
