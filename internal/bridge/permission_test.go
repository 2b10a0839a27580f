package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
)

// TestPermissionOptionsComeFromTheEngine: rx/session/requestPermission
// shows the engine's grant label as the allow_session option (and no
// such option when the engine offers none); allow_session is answered
// to the engine as PermissionAllowSession, which keeps the grant — the
// bridge keeps none.
func TestPermissionOptionsComeFromTheEngine(t *testing.T) {
	s, c, _ := inProcess(t)
	var got []rxproto.PermissionRequest
	c.Handle(rxproto.MethodSessionRequestPermission, func(_ context.Context, raw json.RawMessage) (any, error) {
		var p rxproto.PermissionRequest
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, err
		}
		got = append(got, p)
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": optAllowSession}}, nil
	})
	caps := map[string]any{"experimental": map[string]any{"rxBridge": map[string]any{"version": 1, "sessionUpdates": true}}}
	if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": caps}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(ctxT(t), "rx/actionsChanged", nil); err != nil {
		t.Fatal(err)
	}
	e := &agentEditor{s: s}
	tc := agent.ToolCall{ID: "c1", Key: "tc1", Name: "run_command", Title: "Run rm -rf build in sub", Arguments: `{"command":["rm","-rf","build"],"cwd":"sub"}`}
	label := "Allow `rm -rf build` in sub/ for this session"
	out, err := e.RequestPermission(ctxT(t), agent.PermissionRequest{SessionID: "s1", ToolCall: tc, Grant: label})
	if err != nil || out != agent.PermissionAllowSession {
		t.Fatalf("RequestPermission = %q, %v; want allow_session", out, err)
	}
	// No grant offered: allow_session is not an option, and choosing it
	// anyway denies.
	out, err = e.RequestPermission(ctxT(t), agent.PermissionRequest{SessionID: "s1", ToolCall: tc})
	if err != nil || out != agent.PermissionDeny {
		t.Fatalf("RequestPermission without a grant = %q, %v; want deny", out, err)
	}
	if len(got) != 2 {
		t.Fatalf("%d questions", len(got))
	}
	var names [2][]string
	for i, p := range got {
		for _, o := range p.Options {
			names[i] = append(names[i], o.OptionID+"="+o.Name)
		}
	}
	if want := "allow=Allow once allow_session=" + label + " deny=Deny"; strings.Join(names[0], " ") != want {
		t.Errorf("options %q, want %q", strings.Join(names[0], " "), want)
	}
	if want := "allow=Allow once deny=Deny"; strings.Join(names[1], " ") != want {
		t.Errorf("options without a grant %q, want %q", strings.Join(names[1], " "), want)
	}
}
