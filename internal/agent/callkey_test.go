package agent

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestToolCallKeys (edits, which ask mode asks about): a provider that names every call call-1 (as some
// number the calls of each response) still gets one key per call, in
// updates and permission prompts; the model history keeps call-1; a
// transcript written before calls had keys replays with the keys the
// live session showed; a turn after the load takes a new key.
func TestToolCallKeys(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(
		calls(call("call-1", "apply_edit", map[string]any{"path": "a.txt", "content": "1"})),
		calls(call("call-1", "apply_edit", map[string]any{"path": "b.txt", "content": "2"})),
		answer("done"),
		calls(call("call-1", "apply_edit", map[string]any{"path": "a.txt", "content": "3"})),
		answer("again"),
	), withApproval(ApproveAsk))
	h.write("a.txt", "alpha")
	s := h.session()
	for _, p := range []string{"look twice", "once more"} {
		if _, err := s.Prompt(ctx(t), p); err != nil {
			t.Fatal(err)
		}
	}
	id := s.ID()
	live := merged(h.updates.of(id))
	var keys []string
	for _, tc := range findTool(live, UpdateToolCall, "") {
		keys = append(keys, tc.Key)
		if tc.ID != "call-1" {
			t.Errorf("call %+v: the model's id is lost", tc)
		}
	}
	if want := []string{"tc1", "tc2", "tc3"}; !slices.Equal(keys, want) {
		t.Fatalf("tool_call keys %q, want %q", keys, want)
	}
	var asked []string
	for _, q := range h.editor.questions() {
		asked = append(asked, q.ToolCall.Key)
	}
	if !slices.Equal(asked, keys) {
		t.Errorf("permission prompts for %q, want %q", asked, keys)
	}
	for _, u := range live {
		if u.ToolCall != nil && !slices.Contains(keys, u.ToolCall.Key) {
			t.Errorf("update %s names key %q", u.Kind, u.ToolCall.Key)
		}
		if u.Permission != nil && !slices.Contains(keys, u.Permission.ToolCallKey) {
			t.Errorf("permission update names key %q", u.Permission.ToolCallKey)
		}
	}
	for _, m := range s.History() {
		if m.Role == "tool" && m.ToolCallID != "call-1" {
			t.Errorf("history tool message for %q, want the model's call-1", m.ToolCallID)
		}
	}
	path := s.TranscriptPath()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}

	// The same transcript as written before keys existed.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := regexp.MustCompile(`"(key|toolCallKey)":"tc\d+",`).ReplaceAll(data, nil)
	if slices.Equal(old, data) {
		t.Fatal("the transcript holds no keys")
	}
	for _, transcript := range [][]byte{data, old} {
		if err := os.WriteFile(path, transcript, 0o600); err != nil {
			t.Fatal(err)
		}
		h.updates.reset(id)
		loaded, err := h.reopen().Load(ctx(t), id)
		if err != nil {
			t.Fatal(err)
		}
		equalUpdates(t, h.updates.of(id), live)
		if err := loaded.Close(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}

	h.prov.push(calls(call("call-1", "list_files", "{}")), answer("fourth"))
	loaded, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	h.updates.reset(id)
	if _, err := loaded.Prompt(ctx(t), "after the load"); err != nil {
		t.Fatal(err)
	}
	if got := findTool(h.updates.of(id), UpdateToolCall, ""); len(got) != 1 || got[0].Key != "tc4" {
		t.Errorf("the call after the load: %+v, want key tc4", got)
	}
}
