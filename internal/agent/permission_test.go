package agent

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestApprovalModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		mode   Approval
		answer PermissionOutcome
		// asked lists the tools the user is asked about; ran the calls
		// that ran.
		asked []string
		ran   []string
		stop  StopReason
	}{
		{name: "ask allow", mode: ApproveAsk, answer: PermissionAllow, asked: []string{"apply_edit"}, ran: []string{"c1", "c2"}, stop: StopEndTurn},
		{name: "ask deny", mode: ApproveAsk, answer: PermissionDeny, asked: []string{"apply_edit"}, ran: []string{"c1"}, stop: StopEndTurn},
		{name: "ask cancelled", mode: ApproveAsk, answer: PermissionCancelled, asked: []string{"apply_edit"}, ran: []string{"c1"}, stop: StopCancelled},
		{name: "auto allows reads and edits", mode: ApproveAuto, answer: PermissionDeny, ran: []string{"c1", "c2"}, stop: StopEndTurn},
		{name: "yolo", mode: ApproveYolo, ran: []string{"c1", "c2"}, stop: StopEndTurn},
		{name: "default is ask", mode: "", answer: PermissionAllow, asked: []string{"apply_edit"}, ran: []string{"c1", "c2"}, stop: StopEndTurn},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov := newScripted(calls(
				call("c1", "list_files", "{}"),
				call("c2", "apply_edit", map[string]any{"path": "new.txt", "content": "hi"}),
			), answer("ok"))
			h := newHarness(t, prov, withApproval(tc.mode))
			h.editor.answers = func(PermissionRequest) PermissionOutcome { return tc.answer }
			s := h.session()
			res, err := s.Prompt(ctx(t), "go")
			if err != nil || res.Stop != tc.stop {
				t.Fatalf("Prompt = %+v, %v; want %s", res, err, tc.stop)
			}
			var asked []string
			for _, q := range h.editor.questions() {
				asked = append(asked, q.ToolCall.Name)
				if q.SessionID != s.ID() || q.ToolCall.Status != ToolPending || q.ReadOnly != (q.ToolCall.Name == "list_files") {
					t.Errorf("question %+v", q)
				}
			}
			if strings.Join(asked, ",") != strings.Join(tc.asked, ",") {
				t.Errorf("asked about %v, want %v", asked, tc.asked)
			}
			us := h.updates.of(s.ID())
			var ran []string
			for _, c := range findTool(us, UpdateToolCallUpdate, ToolInProgress) {
				ran = append(ran, c.ID)
			}
			if strings.Join(ran, ",") != strings.Join(tc.ran, ",") {
				t.Errorf("ran %v, want %v", ran, tc.ran)
			}
			// Every question shows as asked and answered.
			var reqs, outcomes int
			for _, u := range us {
				switch u.Kind {
				case UpdatePermissionRequest:
					reqs++
				case UpdatePermissionOutcome:
					outcomes++
					if u.Permission.DecidedBy != DecidedByUser || u.Permission.Plugin != "" || u.Permission.Outcome != tc.answer {
						t.Errorf("outcome %+v", u.Permission)
					}
				}
			}
			if reqs != len(tc.asked) || outcomes != len(tc.asked) {
				t.Errorf("%d requests and %d outcomes shown, want %d", reqs, outcomes, len(tc.asked))
			}
			if tc.answer == PermissionDeny {
				for _, c := range findTool(us, UpdateToolCallUpdate, ToolFailed) {
					if !strings.HasPrefix(c.Output, "permission denied by user") {
						t.Errorf("denied call output %q", c.Output)
					}
				}
			}
			if len(unansweredCalls(s.History())) != 0 {
				t.Error("a call is left unanswered")
			}
		})
	}
}

// TestLegacyPermissionRecord: a transcript written when the decider was
// one phrase loads into the fields.
func TestLegacyPermissionRecord(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Permission
	}{
		{`{"toolCallId":"c","tool":"t","outcome":"deny","decidedBy":"extension policy"}`, Permission{ToolCallID: "c", Tool: "t", Outcome: PermissionDeny, DecidedBy: DecidedByExtension, Plugin: "policy"}},
		{`{"toolCallId":"c","tool":"t","outcome":"allow","decidedBy":"approval mode auto (read-only tool)"}`, Permission{ToolCallID: "c", Tool: "t", Outcome: PermissionAllow, DecidedBy: DecidedByHost, Mode: "auto"}},
		{`{"toolCallId":"c","tool":"t","outcome":"allow","decidedBy":"approval mode "}`, Permission{ToolCallID: "c", Tool: "t", Outcome: PermissionAllow, DecidedBy: DecidedByHost}},
		{`{"toolCallId":"c","tool":"t","outcome":"allow","decidedBy":"user"}`, Permission{ToolCallID: "c", Tool: "t", Outcome: PermissionAllow, DecidedBy: DecidedByUser}},
		{`{"toolCallId":"c","tool":"t","outcome":"allow","decidedBy":"extension","plugin":"p"}`, Permission{ToolCallID: "c", Tool: "t", Outcome: PermissionAllow, DecidedBy: DecidedByExtension, Plugin: "p"}},
	}
	for _, tc := range tests {
		var got Permission
		if err := json.Unmarshal([]byte(tc.in), &got); err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v", tc.in, got, err)
		}
	}
}

// FuzzPermissionRecord: any stored permission record decodes without a
// panic, and what it decodes to survives a write and a read unchanged.
func FuzzPermissionRecord(f *testing.F) {
	for _, s := range []string{
		`{"toolCallId":"c","tool":"t","outcome":"deny","decidedBy":"extension policy"}`,
		`{"decidedBy":"approval mode auto (read-only tool)"}`,
		`{"decidedBy":"approval mode "}`,
		`{"decidedBy":"extension","plugin":"p"}`,
		`{"decidedBy":"host","mode":"yolo"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Permission
		if json.Unmarshal(data, &p) != nil {
			return
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var again Permission
		if err := json.Unmarshal(b, &again); err != nil || again != p {
			t.Fatalf("%s → %+v → %s → %+v, %v", data, p, b, again, err)
		}
	})
}
