package agent

import (
	"testing"
)

// TestSessionEffortReachesTheProvider: a session's effort goes with its
// turns' requests; one the model does not declare is refused.
func TestSessionEffortReachesTheProvider(t *testing.T) {
	t.Parallel()
	prov := newScripted(answer("a"), answer("b"))
	prov.models[0].Efforts = []string{"low", "high"}
	h := newHarness(t, prov)
	s := h.session()
	if err := s.SetEffort("max"); err == nil {
		t.Error("SetEffort(max) on a model with low, high: no error")
	}
	if err := s.SetEffort("high"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "hi"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEffort(""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "again"); err != nil {
		t.Fatal(err)
	}
	reqs := prov.requests()
	if len(reqs) != 2 || reqs[0].Effort != "high" || reqs[1].Effort != "" {
		t.Errorf("efforts sent: %+v", reqs)
	}
}

// TestSessionApprovalOverridesTheAgents: SetApproval replaces the
// agent's mode for that session only.
func TestSessionApprovalOverridesTheAgents(t *testing.T) {
	t.Parallel()
	prov := newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "a.txt", "content": "beta"})), answer("done"))
	h := newHarness(t, prov, withApproval(ApproveYolo))
	h.write("a.txt", "alpha")
	s, other := h.session(), h.session()
	if err := s.SetApproval("sometimes"); err == nil {
		t.Error("SetApproval(sometimes): no error")
	}
	if err := s.SetApproval(ApproveAsk); err != nil {
		t.Fatal(err)
	}
	if s.Approval() != ApproveAsk || other.Approval() != ApproveYolo {
		t.Errorf("approval: %s, other %s", s.Approval(), other.Approval())
	}
	if _, err := s.Prompt(ctx(t), "edit"); err != nil {
		t.Fatal(err)
	}
	if n := len(h.editor.questions()); n != 1 {
		t.Errorf("editor asked %d times under ask, want 1", n)
	}
}
