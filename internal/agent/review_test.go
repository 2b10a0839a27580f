package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// An editor that reviews edits is not asked about an edit the approval
// mode would ask about: the edit runs marked for review, and a rejection
// is the tool's error. Every other call, every other mode and every
// plugin ruling works as without a review.
func TestReviewedEdits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		mode             Approval
		reviews, rejects bool
		deny             bool // a plugin denies apply_edit at permission.decision
		asked            string
		review           bool   // the edit ran marked for review
		result           string // in apply_edit's result
		created          bool
	}{
		{name: "ask, reviewed", mode: ApproveAsk, reviews: true, asked: "run_command", review: true, result: "the user reviewed it", created: true},
		{name: "ask, rejected", mode: ApproveAsk, reviews: true, rejects: true, asked: "run_command", review: true, result: "the user rejected the edit to new.txt; it was not applied"},
		{name: "auto, not reviewed (auto runs edits)", mode: ApproveAuto, reviews: true, asked: "run_command", result: "wrote new.txt (2 bytes)", created: true},
		{name: "yolo, not reviewed", mode: ApproveYolo, reviews: true, result: "wrote new.txt (2 bytes)", created: true},
		{name: "ask, editor without review", mode: ApproveAsk, asked: "run_command,apply_edit", result: "wrote new.txt (2 bytes)", created: true},
		{name: "ask, a plugin denies first", mode: ApproveAsk, reviews: true, deny: true, asked: "run_command", result: "permission denied by extension guard"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov := newScripted(calls(
				call("c1", "run_command", map[string]any{"command": []string{"true"}}),
				call("c2", "apply_edit", map[string]any{"path": "new.txt", "content": "hi"}),
			), answer("ok"))
			opts := []option{withApproval(tc.mode)}
			if tc.deny {
				ps := startPlugins(t, pluginSpec{id: "guard", intercepts: []extproto.HookPoint{extproto.PermissionDecision},
					rules: map[extproto.HookPoint]rule{extproto.PermissionDecision: {Decision: extproto.DecisionDeny, Reason: "no edits", Tool: "apply_edit"}}})
				opts = append(opts, onPlugins(ps))
			}
			h := newHarness(t, prov, opts...)
			h.editor.reviews, h.editor.rejects = tc.reviews, tc.rejects
			s := h.session()
			if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
			var asked []string
			for _, q := range h.editor.questions() {
				asked = append(asked, q.ToolCall.Name)
			}
			if strings.Join(asked, ",") != tc.asked {
				t.Errorf("asked about %v, want %s", asked, tc.asked)
			}
			h.editor.mu.Lock()
			calls := h.editor.calls
			h.editor.mu.Unlock()
			if tc.deny != (len(calls) == 0) {
				t.Fatalf("edits %+v", calls)
			}
			if len(calls) == 1 && (calls[0].Review != tc.review || calls[0].SessionID != s.ID() || calls[0].Key == "" || calls[0].Title != "Edit new.txt") {
				t.Errorf("edit's call = %+v, want review %v", calls[0], tc.review)
			}
			hist := s.History()
			if result := hist[len(hist)-2].Content; !strings.Contains(result, tc.result) {
				t.Errorf("apply_edit result %q, want it to contain %q", result, tc.result)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "new.txt")); (err == nil) != tc.created {
				t.Errorf("new.txt exists: %v, want %v", err == nil, tc.created)
			}
		})
	}
}
