package bridge

import (
	"encoding/json"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// TestPermissionUpdateBy: who decided travels as fields from the agent to
// the wire's "by" (user, host or the plugin id), never as prose; the call
// is named by its key, not the model's id.
func TestPermissionUpdateBy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    agent.Permission
		want string
	}{
		{agent.Permission{ToolCallID: "call-1", ToolCallKey: "c1", Outcome: agent.PermissionAllow, DecidedBy: agent.DecidedByUser}, `{"sessionUpdate":"permission","toolCallId":"c1","outcome":"allowed","by":"user"}`},
		{agent.Permission{ToolCallID: "call-1", ToolCallKey: "c2", Outcome: agent.PermissionDeny, DecidedBy: agent.DecidedByExtension, Plugin: "policy"}, `{"sessionUpdate":"permission","toolCallId":"c2","outcome":"denied","by":"policy"}`},
		{agent.Permission{ToolCallID: "call-1", ToolCallKey: "c4", Outcome: agent.PermissionAllow, DecidedBy: agent.DecidedByHost, Mode: "yolo"}, `{"sessionUpdate":"permission","toolCallId":"c4","outcome":"allowed","by":"host"}`},
		{agent.Permission{ToolCallID: "call-1", ToolCallKey: "c5", Outcome: agent.PermissionCancelled, DecidedBy: agent.DecidedByUser}, `{"sessionUpdate":"permission","toolCallId":"c5","outcome":"cancelled","by":"user"}`},
		{agent.Permission{ToolCallID: "call-1", ToolCallKey: "c6", Outcome: agent.PermissionDeny, DecidedBy: agent.DecidedByHook}, `{"sessionUpdate":"permission","toolCallId":"c6","outcome":"denied","by":"hook"}`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(wireUpdate(agent.Update{Kind: agent.UpdatePermissionOutcome, Permission: &tc.p}))
		if err != nil || string(got) != tc.want {
			t.Errorf("%+v: got %s, %v; want %s", tc.p, got, err, tc.want)
		}
	}
}

// TestNoticeInPlainWords: issue 30 item 11, an editor showed a notice's
// "(provider_interrupted)": the text for people has no reason tags.
func TestNoticeInPlainWords(t *testing.T) {
	t.Parallel()
	err := extproto.Errorf(extproto.ReasonProviderInterrupted, "extension sidecar echo crashed: connection closed (exit status 2)")
	got, _ := json.Marshal(wireUpdate(agent.Update{Kind: agent.UpdateNotice, Notice: &agent.Notice{Kind: agent.NoticeWarning, Text: "the model failed: " + err.Error()}}))
	if want := `{"sessionUpdate":"notice","severity":"warn","text":"the model failed: extension sidecar echo crashed: connection closed (exit status 2)"}`; string(got) != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestSubagentUpdates: a subagent run's chunks, tool calls and notices
// carry the run on the wire, so editors can show them apart from the
// session's own answer; the session's own updates carry nothing.
func TestSubagentUpdates(t *testing.T) {
	t.Parallel()
	ref := &agent.SubagentRef{ID: "sub1.1", Name: "kit:agent:reviewer", Skill: "reviewer", ParentToolCallID: "call-1"}
	const wire = `"subagent":{"id":"sub1.1","name":"kit:agent:reviewer","parentToolCallId":"call-1"}`
	tests := []struct {
		name string
		u    agent.Update
		want string
	}{
		{"chunk", agent.Update{Kind: agent.UpdateAgentMessage, Text: "hi", Subagent: ref}, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"},` + wire + `}`},
		{"tool call", agent.Update{Kind: agent.UpdateToolCall, ToolCall: &agent.ToolCall{ID: "sub1.1/c", Key: "tc4", Name: "read_file", Status: agent.ToolPending}, Subagent: ref}, `{"sessionUpdate":"tool_call","toolCallId":"tc4","title":"read_file","kind":"other","status":"pending",` + wire + `}`},
		{"tool call update", agent.Update{Kind: agent.UpdateToolCallUpdate, ToolCall: &agent.ToolCall{ID: "sub1.1/c", Key: "tc4", Name: "grep", Title: "grep TODO", Status: agent.ToolCompleted}, Subagent: ref}, `{"sessionUpdate":"tool_call_update","toolCallId":"tc4","title":"grep TODO","status":"completed",` + wire + `}`},
		{"notice", agent.Update{Kind: agent.UpdateNotice, Notice: &agent.Notice{Kind: agent.NoticeWarning, Text: "w"}, Subagent: ref}, `{"sessionUpdate":"notice","severity":"warn","text":"w",` + wire + `}`},
		{"own chunk", agent.Update{Kind: agent.UpdateAgentMessage, Text: "hi"}, `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`},
	}
	for _, tc := range tests {
		got, err := json.Marshal(wireUpdate(tc.u))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v\nwant %s", tc.name, got, err, tc.want)
		}
	}
}

// TestTodoWriteIsAToolCall: the agent's todo_write (kind think, which
// the editor protocol has no value for) reaches LSP editors as a plain
// tool call of kind other with its arguments.
func TestTodoWriteIsAToolCall(t *testing.T) {
	t.Parallel()
	tc := &agent.ToolCall{ID: "call_2", Key: "tc2", Name: "todo_write", Title: "Update the plan (1 items)", Kind: tools.KindThink, Status: agent.ToolPending,
		Arguments: `{"todos":[{"content":"Ship it","status":"pending"}]}`}
	got, err := json.Marshal(wireUpdate(agent.Update{Kind: agent.UpdateToolCall, ToolCall: tc}))
	want := `{"sessionUpdate":"tool_call","toolCallId":"tc2","title":"Update the plan (1 items)","kind":"other","status":"pending","rawInput":{"todos":[{"content":"Ship it","status":"pending"}]}}`
	if err != nil || string(got) != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
}
