package bridge

import (
	"encoding/json"
	"testing"

	"github.com/rx-bridge/rx-bridge/agent"
)

// TestPermissionUpdateBy: who decided travels as fields from the agent to
// the wire's "by" (user, host or the plugin id), never as prose.
func TestPermissionUpdateBy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    agent.Permission
		want string
	}{
		{agent.Permission{ToolCallID: "c1", Outcome: agent.PermissionAllow, DecidedBy: agent.DecidedByUser}, `{"sessionUpdate":"permission","toolCallId":"c1","outcome":"allowed","by":"user"}`},
		{agent.Permission{ToolCallID: "c2", Outcome: agent.PermissionDeny, DecidedBy: agent.DecidedByExtension, Plugin: "policy"}, `{"sessionUpdate":"permission","toolCallId":"c2","outcome":"denied","by":"policy"}`},
		{agent.Permission{ToolCallID: "c4", Outcome: agent.PermissionAllow, DecidedBy: agent.DecidedByHost, Mode: "yolo"}, `{"sessionUpdate":"permission","toolCallId":"c4","outcome":"allowed","by":"host"}`},
		{agent.Permission{ToolCallID: "c5", Outcome: agent.PermissionCancelled, DecidedBy: agent.DecidedByUser}, `{"sessionUpdate":"permission","toolCallId":"c5","outcome":"cancelled","by":"user"}`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(wireUpdate(agent.Update{Kind: agent.UpdatePermissionOutcome, Permission: &tc.p}))
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: got %s, %v; want %s", tc.p, got, err, tc.want)
		}
	}
}
