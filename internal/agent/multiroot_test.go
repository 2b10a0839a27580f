package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// TestMultiRootHookCwd: a tool hook's cwd is the workspace root that
// holds the path the call concerns, else the primary root; SetRoots
// changes a session's other roots and keeps its primary.
func TestMultiRootHookCwd(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "hooks.log")
	r := loadHooks(t, nil, hookPackage(t, "cwd", map[string][]map[string]any{"PreToolUse": {hookEntry(log, nil, nil)}}))
	other := t.TempDir()
	otherFile := filepath.Join(other, "o.txt")
	if err := os.WriteFile(otherFile, []byte("o"), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := newScripted(
		calls(call("c1", "read_file", map[string]any{"path": otherFile})),
		calls(call("c2", "list_files", map[string]any{"path": "."})),
		answer("done"))
	h := newHarness(t, prov, withHooks(r), withApproval(ApproveYolo))
	s, err := h.agent.New(ctx(t), h.ws, "test/m1", other)
	if err != nil {
		t.Fatal(err)
	}
	realWS, _ := filepath.EvalSymlinks(h.ws)
	realOther, _ := filepath.EvalSymlinks(other)
	if got := s.Roots(); !slices.Equal(got, []string{realWS, realOther}) {
		t.Fatalf("Roots = %q", got)
	}
	if _, err := s.Prompt(ctx(t), "go"); err != nil {
		t.Fatal(err)
	}
	runs := hookRuns(t, log, "PreToolUse")
	if len(runs) != 2 || runs[0]["cwd"] != realOther || runs[1]["cwd"] != realWS {
		t.Errorf("PreToolUse cwds = %v", runs)
	}
	if err := s.SetRoots(nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Roots(); !slices.Equal(got, []string{realWS}) {
		t.Errorf("Roots after SetRoots(nil) = %q", got)
	}
}

// TestSetRootsDuringATurn: roots set while a turn runs apply when it
// ends; the running turn keeps the roots it started with.
func TestSetRootsDuringATurn(t *testing.T) {
	t.Parallel()
	other := t.TempDir()
	otherFile := filepath.Join(other, "o.txt")
	if err := os.WriteFile(otherFile, []byte("other root"), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := newScripted(calls(call("c1", "read_file", map[string]any{"path": otherFile})), answer("done"))
	prov.started = make(chan providers.Request) // each stream waits to be seen
	h := newHarness(t, prov, withApproval(ApproveYolo))
	s := h.session()
	done := make(chan error, 1)
	go func() { _, err := s.Prompt(ctx(t), "go"); done <- err }()
	<-prov.started
	if err := s.SetRoots([]string{other}); err != nil {
		t.Fatal(err)
	}
	if got := s.Roots(); len(got) != 1 {
		t.Errorf("Roots during the turn = %q", got)
	}
	<-prov.started // the second round: the turn still runs
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := s.Roots(); len(got) != 2 {
		t.Errorf("Roots after the turn = %q", got)
	}
	// The running turn's read was refused: it started without the root.
	reqs := prov.requests()
	last := reqs[len(reqs)-1].Body.Messages
	if res := last[len(last)-1]; !strings.Contains(res.Content, "outside") || strings.Contains(res.Content, "other root") {
		t.Errorf("the turn's read_file result = %q", res.Content)
	}
}
