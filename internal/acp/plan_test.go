package acp

import (
	"encoding/json"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

func TestPlanEntriesFromTodoArgs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args, want string
		ok               bool
	}{
		{"levels and statuses",
			`{"todos":[{"content":"Read the code","status":"completed"},{"content":"Fix it","status":"in_progress","activeForm":"Fixing it","level":0},{"content":" Test it ","status":"pending","level":1}]}`,
			`[{"content":"Read the code","priority":"high","status":"completed"},{"content":"Fix it","priority":"high","status":"in_progress"},{"content":"Test it","priority":"medium","status":"pending"}]`, true},
		{"unknown status is pending", `{"todos":[{"content":"x","status":"done"},{"content":"y"}]}`,
			`[{"content":"x","priority":"high","status":"pending"},{"content":"y","priority":"high","status":"pending"}]`, true},
		{"empty content skipped", `{"todos":[{"content":"","status":"pending"},{"content":"  ","status":"completed"},{"content":"z","status":"completed","level":2}]}`,
			`[{"content":"z","priority":"medium","status":"completed"}]`, true},
		{"a level that is no number is top-level", `{"todos":[{"content":"x","status":"pending","level":"deep"}]}`,
			`[{"content":"x","priority":"high","status":"pending"}]`, true},
		{"an empty list clears the plan", `{"todos":[]}`, `[]`, true},
		{"no list", `{"items":[]}`, ``, false},
		{"not JSON", `{"todos":`, ``, false},
	} {
		got, ok := planEntries(tc.args)
		b, _ := json.Marshal(got)
		if ok != tc.ok || (ok && string(b) != tc.want) {
			t.Errorf("%s: %s %v, want %s %v", tc.name, b, ok, tc.want, tc.ok)
		}
	}
}

func TestUpdateSinkEmitsPlanForTodoWrite(t *testing.T) {
	t.Parallel()
	todo := &agent.ToolCall{ID: "call_2", Key: "tc2", Name: "todo_write", Title: "Update the plan (1 items)", Kind: tools.KindThink, Status: agent.ToolPending,
		Arguments: `{"todos":[{"content":"Ship it","status":"in_progress"}]}`}
	for _, replay := range []bool{false, true} {
		got := mapUpdate(agent.Update{Kind: agent.UpdateToolCall, ToolCall: todo}, replay)
		if len(got) != 2 {
			t.Fatalf("replay %v: %d updates, want tool_call and plan", replay, len(got))
		}
		b, _ := json.Marshal(wire(t, got[0]))
		if want := `{"kind":"think","rawInput":{"todos":[{"content":"Ship it","status":"in_progress"}]},"sessionUpdate":"tool_call","status":"pending","title":"Update the plan (1 items)","toolCallId":"tc2"}`; string(b) != want {
			t.Errorf("tool_call:\n got %s\nwant %s", b, want)
		}
		b, _ = json.Marshal(wire(t, got[1]))
		if want := `{"entries":[{"content":"Ship it","priority":"high","status":"in_progress"}],"sessionUpdate":"plan"}`; string(b) != want {
			t.Errorf("plan:\n got %s\nwant %s", b, want)
		}
	}
	// Its result is a tool_call_update only; other tools have no plan.
	done := *todo
	done.Status, done.Output = agent.ToolCompleted, "Plan recorded: 1 items (0 completed, 1 in progress, 0 pending)."
	if got := mapUpdate(agent.Update{Kind: agent.UpdateToolCallUpdate, ToolCall: &done}, false); len(got) != 1 || got[0].ToolCallUpdate == nil {
		t.Errorf("result: %+v", got)
	}
	read := &agent.ToolCall{ID: "c", Name: "read_file", Arguments: `{"todos":[{"content":"x"}]}`}
	if got := mapUpdate(agent.Update{Kind: agent.UpdateToolCall, ToolCall: read}, false); len(got) != 1 {
		t.Errorf("read_file with a todos argument: %d updates", len(got))
	}
}

// FuzzPlanEntries: whatever arguments the model gives todo_write, the
// plan has only entries with content and the schema's priorities and
// statuses.
func FuzzPlanEntries(f *testing.F) {
	f.Add(`{"todos":[{"content":"a","status":"in_progress","level":1},{"content":"","status":"x"}]}`)
	f.Add(`{"todos":[{"content":" ","level":-1.5},null,{"level":1e309}]}`)
	f.Add(`{"todos":null}`)
	f.Fuzz(func(t *testing.T, args string) {
		entries, ok := planEntries(args)
		if !ok && entries != nil {
			t.Fatalf("no plan but entries %v", entries)
		}
		for _, e := range entries {
			if e.Content == "" || (e.Priority != "high" && e.Priority != "medium") ||
				(e.Status != "pending" && e.Status != "in_progress" && e.Status != "completed") {
				t.Fatalf("entry %+v", e)
			}
		}
	})
}
