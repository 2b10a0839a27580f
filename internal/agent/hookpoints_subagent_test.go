package agent

import (
	"path/filepath"
	"slices"
	"testing"
)

// A subagent's tool calls run the tool hooks; when it ends, SubagentStop
// runs with its answer; UserPromptSubmit and Stop bracket the user's turn
// only.
func TestSubagentRunsToolHooksAndSubagentStop(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	hooks := map[string][]map[string]any{}
	for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "SubagentStop", "Stop"} {
		hooks[ev] = []map[string]any{hookEntry(log, nil, nil)}
	}
	r := loadHooks(t, nil, hookPackage(t, "sub", hooks))
	prov := newScripted(
		calls(call("c1", "run_skill", map[string]any{"name": "reader", "arguments": "read a.txt"})),
		calls(call("c2", "read_file", map[string]any{"path": "a.txt"})),
		answer("a.txt says: alpha"),
		answer("The subagent found alpha."),
	)
	h := newHarness(t, prov, withContent(loadKit(t, kitFiles), nil), withHooks(r))
	h.write("a.txt", "alpha")
	s := h.session()
	if res, err := s.Prompt(ctx(t), "what is in a.txt?"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	var tools []string
	for _, p := range hookRuns(t, log, "PreToolUse") {
		tools = append(tools, p["toolName"].(string))
	}
	if !slices.Equal(tools, []string{"run_skill", "read_file"}) {
		t.Errorf("PreToolUse ran for %v", tools)
	}
	if runs := hookRuns(t, log, "SubagentStop"); len(runs) != 1 || runs[0]["lastAssistantText"] != "a.txt says: alpha" {
		t.Errorf("SubagentStop runs %v", runs)
	}
	if runs := hookRuns(t, log, "UserPromptSubmit"); len(runs) != 1 || runs[0]["prompt"] != "what is in a.txt?" {
		t.Errorf("UserPromptSubmit runs %v", runs)
	}
	if runs := hookRuns(t, log, "Stop"); len(runs) != 1 || runs[0]["lastAssistantText"] != "The subagent found alpha." {
		t.Errorf("Stop runs %v", runs)
	}
}
