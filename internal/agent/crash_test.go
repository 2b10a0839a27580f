package agent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// Environment of the child that is killed mid-turn.
const (
	envHome   = "RX_AGENT_HOME"
	envWS     = "RX_AGENT_WS"
	envMarker = "RX_AGENT_MARKER"
)

// hangingEditor writes the session id to the marker file when an edit
// arrives and then never returns: the child is mid-tool when it dies.
type hangingEditor struct {
	fakeEditor
	marker, id string
}

func (e *hangingEditor) ApplyEdit(context.Context, FileEdit) error {
	_ = os.WriteFile(e.marker, []byte(e.id), 0o644)
	select {}
}

// childTurn runs one finished turn and a second one that hangs inside
// apply_edit, until the parent kills the process.
func childTurn() int {
	prov := newScripted(
		answer("first answer"),
		calls(call("c1", "list_files", "{}"), call("c2", "apply_edit", map[string]any{"path": "x.txt", "content": "x"}), call("c3", "list_files", "{}")),
	)
	cat, err := providers.NewCatalog(prov)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ed := &hangingEditor{marker: os.Getenv(envMarker)}
	a, err := NewAgent(Options{Home: os.Getenv(envHome), Settings: Settings{Approval: ApproveYolo}, Runtime: Static(cat), Editor: ed})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := a.New(context.Background(), os.Getenv(envWS), "test/m1")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ed.id = s.ID()
	if _, err := s.Prompt(context.Background(), "one"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	_, _ = s.Prompt(context.Background(), "two")
	return 3
}

func TestKill9MidTurnThenLoad(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home, ws := t.TempDir(), t.TempDir()
	marker := t.TempDir() + "/marker"
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envChild+"=turn", envHome+"="+home, envWS+"="+ws, envMarker+"="+marker)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	for deadline := time.Now().Add(30 * time.Second); id == ""; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the child never reached the edit; stderr: %s", stderr.String())
		}
		raw, _ := os.ReadFile(marker)
		id = string(raw)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no deferred cleanup runs
		t.Fatal(err)
	}
	_ = cmd.Wait()

	h := newHarness(t, newScripted(answer("after the crash")))
	h.opts.Home = home
	a := h.reopen()
	s, err := a.Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	hist := s.History()
	var got []string
	for _, m := range hist {
		got = append(got, string(m.Role)+":"+firstLine(m.Content))
	}
	want := []string{"user:one", "assistant:first answer", "user:two", "assistant:Let me look."}
	if len(got) < 4 || !reflect.DeepEqual(got[:4], want) {
		t.Fatalf("history %v, want it to start %v", got, want)
	}
	// c1 ran before the crash; c2 was running and c3 never started: both
	// are answered as interrupted.
	tail := hist[4:]
	if len(tail) != 3 || tail[0].ToolCallID != "c1" || tail[1].ToolCallID != "c2" || tail[1].Content != interruptedReason || tail[2].ToolCallID != "c3" || tail[2].Content != interruptedReason {
		t.Fatalf("tool results after the crash: %+v", tail)
	}
	us := h.updates.of(id)
	end := us[len(us)-1]
	if end.Kind != UpdateTurnEnd || !end.End.Interrupted || end.Turn != 2 {
		t.Fatalf("last update %+v, want turn 2 marked interrupted", end)
	}
	var firstEnd *TurnEnd
	for _, u := range us {
		if u.Kind == UpdateTurnEnd && u.Turn == 1 {
			firstEnd = u.End
		}
	}
	if firstEnd == nil || firstEnd.Stop != StopEndTurn {
		t.Fatalf("turn 1 end %+v", firstEnd)
	}
	// The session goes on, and a second load does not mark anything again.
	if res, err := s.Prompt(ctx(t), "three"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("turn after load: %+v, %v", res, err)
	}
	if s.Turns() != 3 {
		t.Errorf("turns %d", s.Turns())
	}
	_ = s.Close(ctx(t))
	h.updates.reset(id)
	again, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	var interrupted int
	for _, u := range h.updates.of(id) {
		if u.Kind == UpdateTurnEnd && u.End.Interrupted {
			interrupted++
		}
	}
	if interrupted != 1 || !reflect.DeepEqual(again.History(), s.History()) {
		t.Errorf("second load: %d interrupted turns", interrupted)
	}
	if len(unansweredCalls(again.History())) != 0 || again.History()[len(again.History())-1].Role != extproto.RoleAssistant {
		t.Error("history after reload is not a valid conversation")
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
