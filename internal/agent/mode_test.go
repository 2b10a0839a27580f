package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// TestPlanModeRefusesChangesUntilNormal: in plan mode the model reads
// and records its plan (todo_write, never asked about), an edit and a
// command are refused with a tool error naming plan mode and nobody is
// asked; back in normal mode the same edit runs.
func TestPlanModeRefusesChangesUntilNormal(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(call("c1", "read_file", map[string]any{"path": "a.txt"}),
			call("c2", "todo_write", map[string]any{"todos": []map[string]any{{"content": "Change a.txt", "status": "pending"}}}),
			call("c3", "apply_edit", map[string]any{"path": "a.txt", "content": "changed"}),
			call("c4", "run_command", map[string]any{"command": []string{"true"}})),
		answer("Here is the plan."),
		calls(call("c5", "apply_edit", map[string]any{"path": "a.txt", "content": "changed"})),
		answer("Done."),
	)
	h := newHarness(t, prov, withApproval(ApproveAsk))
	h.write("a.txt", "alpha")
	s := h.session()
	if err := s.SetMode("goal"); err == nil {
		t.Error("SetMode(goal): no error")
	}
	if s.Mode() != ModeNormal {
		t.Errorf("new session mode %q", s.Mode())
	}
	if err := s.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "plan it"); err != nil {
		t.Fatal(err)
	}
	byID := map[string]ToolCall{}
	for _, tc := range findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, "") {
		byID[tc.ID] = tc
	}
	for id, want := range map[string]ToolStatus{"c1": ToolCompleted, "c2": ToolCompleted, "c3": ToolFailed, "c4": ToolFailed} {
		if byID[id].Status != want {
			t.Errorf("%s (%s): %s, want %s: %q", id, byID[id].Name, byID[id].Status, want, byID[id].Output)
		}
	}
	for _, id := range []string{"c3", "c4"} {
		if out := byID[id].Output; !strings.HasPrefix(out, "plan mode: "+byID[id].Name+" is refused") {
			t.Errorf("%s refusal: %q", id, out)
		}
	}
	if got := byID["c2"].Output; got != "Plan recorded: 1 items (0 completed, 0 in progress, 1 pending)." {
		t.Errorf("todo_write: %q", got)
	}
	// Nothing was asked about: ask mode runs reads and todo_write
	// unasked, plan mode refuses without asking.
	if q := h.editor.questions(); len(q) != 0 {
		t.Errorf("asked about %+v", q)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(b) != "alpha" {
		t.Fatalf("plan mode changed a.txt: %q", b)
	}
	if err := s.SetMode(ModeNormal); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "do it"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(b) != "changed" {
		t.Errorf("normal mode: a.txt %q", b)
	}
}

// TestSessionSettingsAreStored: effort, approval and mode are stored
// with the session — set idle or during a turn — and a reload (a new
// process) restores them; a session stored without them loads with the
// defaults.
func TestSessionSettingsAreStored(t *testing.T) {
	t.Parallel()
	prov := newScripted(step{hang: true})
	prov.models[0].Efforts = []string{"low", "high"}
	prov.started = make(chan providers.Request, 1)
	h := newHarness(t, prov, withApproval(ApproveAuto))
	plain := h.session()
	s := h.session()
	if err := s.SetEffort("high"); err != nil {
		t.Fatal(err)
	}
	// During a turn: in force at once (approval, mode), stored when the
	// turn ends.
	done := make(chan error, 1)
	go func() { _, err := s.Prompt(ctx(t), "wait"); done <- err }()
	<-prov.started
	if err := s.SetApproval(ApproveYolo); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	if s.Approval() != ApproveYolo || s.Mode() != ModePlan {
		t.Errorf("during the turn: approval %s, mode %s", s.Approval(), s.Mode())
	}
	s.Cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Session{s, plain} {
		if err := x.Close(ctx(t)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.SetEffort("low"); err != ErrSessionClosed {
		t.Errorf("SetEffort after Close: %v", err)
	}
	a := h.reopen()
	back, err := a.Load(ctx(t), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if back.Model() != "test/m1" || back.Effort() != "high" || back.Approval() != ApproveYolo || back.Mode() != ModePlan {
		t.Errorf("restored: model %s effort %q approval %s mode %s", back.Model(), back.Effort(), back.Approval(), back.Mode())
	}
	old, err := a.Resume(ctx(t), plain.ID())
	if err != nil {
		t.Fatal(err)
	}
	if old.Effort() != "" || old.Approval() != ApproveAuto || old.Mode() != ModeNormal {
		t.Errorf("without stored settings: effort %q approval %s mode %s", old.Effort(), old.Approval(), old.Mode())
	}
	// Resume shows nothing stored; Load replays it.
	if err := back.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	h.updates.reset(s.ID())
	if _, err := h.reopen().Resume(ctx(t), s.ID()); err != nil {
		t.Fatal(err)
	}
	if us := h.updates.of(s.ID()); len(us) != 0 {
		t.Errorf("Resume showed %v", kinds(us))
	}
}

// TestLoadFallsBackFromStaleModel: a stored model the catalog no longer
// has (its plugin is gone) falls back to the default model with a
// warning, and the stored effort the default does not take to its own;
// the fallback is stored.
func TestLoadFallsBackFromStaleModel(t *testing.T) {
	t.Parallel()
	prov := newScripted()
	prov.models[1].Efforts = []string{"max"}
	h := newHarness(t, prov)
	s, err := h.agent.New(ctx(t), h.ws, "test/m2")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetEffort("max"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	gone := newScripted()
	gone.models = gone.models[:1] // test/m1 only
	cat, err := providers.NewCatalog(gone)
	if err != nil {
		t.Fatal(err)
	}
	h.opts.Runtime, h.opts.Settings.Model = Static(cat), "test/m1"
	for i := range 2 {
		h.updates.reset(s.ID())
		a := h.reopen()
		back, err := a.Resume(ctx(t), s.ID())
		if err != nil {
			t.Fatal(err)
		}
		if back.Model() != "test/m1" || back.Effort() != "" {
			t.Errorf("load %d: model %s effort %q, want test/m1 and the model's own", i+1, back.Model(), back.Effort())
		}
		var warnings []string
		for _, u := range h.updates.of(s.ID()) {
			if u.Notice != nil && u.Notice.Kind == NoticeWarning {
				warnings = append(warnings, u.Notice.Text)
			}
		}
		if err := back.Close(ctx(t)); err != nil {
			t.Fatal(err)
		}
		// The first load falls back and stores it; the second finds the
		// session on the default already.
		switch {
		case i == 0 && (len(warnings) != 2 || !strings.HasPrefix(warnings[0], "the session's model test/m2 is no longer available") ||
			!strings.Contains(warnings[0], "the default model test/m1") || !strings.HasPrefix(warnings[1], "the session's effort max")):
			t.Errorf("first load: warnings %q", warnings)
		case i == 1 && len(warnings) != 0:
			t.Errorf("the fallback was not stored: the second load warned %q", warnings)
		}
	}
	if _, torn, err := transcript.Read(filepath.Join(h.home, SessionsDir), s.ID()); err != nil || torn != nil {
		t.Fatal(err, torn)
	}
}

// TestPlanApprovalLeavesPlanMode (issue 29 item 6): in plan mode the
// model presents its plan with exit_plan_mode; the user is asked even in
// yolo (approving a plan needs a person); a rejected plan keeps the
// session in plan mode and refuses the edit, an approved one switches
// it to normal and the same turn carries the plan out.
func TestPlanApprovalLeavesPlanMode(t *testing.T) {
	t.Parallel()
	plan := map[string]any{"plan": "1. Change a.txt to \"changed\"."}
	prov := newScripted(
		calls(call("p1", ToolExitPlanMode, plan)),
		calls(call("e1", "apply_edit", map[string]any{"path": "a.txt", "content": "changed"})),
		answer("Kept planning."),
		calls(call("p2", ToolExitPlanMode, plan)),
		calls(call("e2", "apply_edit", map[string]any{"path": "a.txt", "content": "changed"})),
		answer("Done."),
	)
	h := newHarness(t, prov, withApproval(ApproveYolo))
	h.write("a.txt", "alpha")
	s := h.session()
	if err := s.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	approve := PermissionDeny
	h.editor.answers = func(req PermissionRequest) PermissionOutcome {
		if req.ToolCall.Name != ToolExitPlanMode {
			t.Errorf("asked about %s in yolo", req.ToolCall.Name)
			return PermissionDeny
		}
		return approve
	}
	if _, err := s.Prompt(ctx(t), "plan it"); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != ModePlan {
		t.Errorf("a rejected plan left plan mode: %s", s.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(b) != "alpha" {
		t.Fatalf("a rejected plan changed a.txt: %q", b)
	}
	approve = PermissionAllow
	if _, err := s.Prompt(ctx(t), "plan it again"); err != nil {
		t.Fatal(err)
	}
	if s.Mode() != ModeNormal {
		t.Errorf("an approved plan left the session in %s", s.Mode())
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "a.txt")); string(b) != "changed" {
		t.Errorf("the approved plan was not carried out in its turn: a.txt %q", b)
	}
	if q := h.editor.questions(); len(q) != 2 {
		t.Errorf("%d questions, want the two plan approvals", len(q))
	}
	var noticed bool
	for _, u := range h.updates.of(s.ID()) {
		noticed = noticed || (u.Kind == UpdateNotice && u.Notice.Kind == NoticeMode)
	}
	if !noticed {
		t.Error("no mode notice after the approval")
	}
	// Offered in plan mode only.
	prov.mu.Lock()
	reqs := prov.reqs
	prov.mu.Unlock()
	offered := func(r providers.Request) bool {
		return slices.ContainsFunc(r.Body.Tools, func(sc extproto.ProviderToolSchema) bool { return sc.Name == ToolExitPlanMode })
	}
	if len(reqs) != 6 || !offered(reqs[0]) || !offered(reqs[3]) {
		t.Errorf("exit_plan_mode not offered in plan mode (%d requests)", len(reqs))
	}
}
