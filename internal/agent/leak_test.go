package agent

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// TestNoGoroutineOutlivesTheAgent runs turns that use every goroutine the
// agent starts (a background fsync per turn, a cancelled stream, a
// command's process group) and checks none is left once it is closed.
// It is not parallel, so no other test's goroutines come and go.
func TestNoGoroutineOutlivesTheAgent(t *testing.T) {
	// proctree's spawner threads live as long as the process, by design.
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent(), goleak.IgnoreTopFunction("github.com/rx-bridge/rx-bridge/internal/proctree.spawnLoop"))
	prov := newScripted(
		calls(call("c1", "run_command", map[string]any{"command": []string{"true"}})),
		answer("one"),
		step{hang: true},
	)
	prov.started = make(chan providers.Request, 3)
	h := newHarness(t, prov)
	s := h.session()
	if _, err := s.Prompt(ctx(t), "run it"); err != nil {
		t.Fatal(err)
	}
	<-prov.started
	<-prov.started
	go func() {
		<-prov.started
		s.Cancel()
	}()
	if res, err := s.Prompt(ctx(t), "hang"); err != nil || res.Stop != StopCancelled {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if err := h.agent.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
}
