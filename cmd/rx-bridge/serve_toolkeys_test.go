package main

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// wireToolIDs are the toolCallIds of a session's rx/session/update
// messages from the index-th on: those that announce a call (tool_call),
// and those of every tool call and permission update.
func wireToolIDs(c *lspclient.Client, id string, from int) (announced, all []string) {
	n := 0
	for _, m := range c.Messages("rx/session/update") {
		var u struct {
			SessionID string
			Update    struct {
				SessionUpdate string
				ToolCallID    string
			}
		}
		_ = json.Unmarshal(m.Params, &u)
		if u.SessionID != id {
			continue
		}
		n++
		if n <= from || u.Update.ToolCallID == "" {
			continue
		}
		if u.Update.SessionUpdate == "tool_call" {
			announced = append(announced, u.Update.ToolCallID)
		}
		all = append(all, u.Update.ToolCallID)
	}
	return announced, all
}

// TestServeToolCallKeys: echo-provider names every call call-1; each
// call of a session still gets its own toolCallId, the permission
// question and updates name it, a replayed session shows the same ids,
// and a turn after the load does not reuse one.
func TestServeToolCallKeys(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"ask\"\n")
	e.env = []string{"ECHO_PROVIDER_CALL_ID=call-1"}
	c := e.start()
	var mu sync.Mutex
	var asked []string
	c.Handle("rx/session/requestPermission", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct{ ToolCall struct{ ToolCallID string } }
		_ = json.Unmarshal(raw, &r)
		mu.Lock()
		asked = append(asked, r.ToolCall.ToolCallID)
		mu.Unlock()
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": "allow"}}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)
	for range 2 {
		if r := prompt(t, c, sid, `call run_command {"command":["true"]}`); r.StopReason != "end_turn" {
			t.Fatalf("turn = %+v", r)
		}
	}
	live, all := wireToolIDs(c, sid, 0)
	if len(live) != 2 || live[0] == live[1] {
		t.Fatalf("tool_call ids %q: want two different ids", live)
	}
	for _, id := range all {
		if !slices.Contains(live, id) {
			t.Errorf("an update names %q, which no tool_call announced (%q)", id, live)
		}
	}
	mu.Lock()
	if !slices.Equal(asked, live) {
		t.Errorf("permission questions name %q, want %q", asked, live)
	}
	mu.Unlock()

	if err := c.Call(ctxT(t), "rx/session/close", map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	before := len(updatesOf(c, sid))
	if err := c.Call(ctxT(t), "rx/session/load", map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	replayed, _ := wireToolIDs(c, sid, before)
	if !slices.Equal(replayed, live) {
		t.Errorf("replayed tool_call ids %q, live %q", replayed, live)
	}
	before = len(updatesOf(c, sid))
	prompt(t, c, sid, `call run_command {"command":["true"]}`)
	next, _ := wireToolIDs(c, sid, before)
	if len(next) != 1 || slices.Contains(live, next[0]) {
		t.Errorf("after the load, tool_call ids %q; earlier %q", next, live)
	}
	shutdownExit(t, c)
}
