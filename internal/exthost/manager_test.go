package exthost

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// newTestManager is a manager whose start budget is budget, scaled for
// the machine: for a test that exercises the budget.
func newTestManager(budget time.Duration) *Manager {
	return NewManager(ManagerOptions{SessionID: "sess-test", WorkspaceRoot: "/ws", StartBudget: testenv.Scale(budget), ShutdownTimeout: testenv.Scale(time.Second)})
}

// newWaitingManager is a manager for a test that does not exercise the
// start budget: its starts are bounded by the test's own deadline
// (issue 28 item 3: a 30 s budget shared by 16 starts left a 5.6 s
// handshake under a load average of 20–30).
func newWaitingManager(t *testing.T) *Manager {
	return NewManager(ManagerOptions{SessionID: "sess-test", WorkspaceRoot: "/ws", StartBudget: testenv.UntilDeadline(t, 30*time.Second), ShutdownTimeout: testenv.Scale(time.Second)})
}

func TestGenerationStartsInWavesOfFour(t *testing.T) {
	t.Parallel()
	var plugins []*Plugin
	var pidFiles []string
	for i := range 16 {
		p, pid := fakePlugin(t, fmt.Sprintf("p%02d", i), "slow-init", nil)
		plugins = append(plugins, p)
		pidFiles = append(pidFiles, pid)
	}
	m := newWaitingManager(t)
	defer m.Close()
	g, err := m.Load(context.Background(), plugins)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Sidecars) != 16 || len(g.Warnings) != 0 {
		t.Fatalf("started %d, warnings %v", len(g.Sidecars), g.Warnings)
	}
	type ev struct {
		at    int64
		delta int
	}
	var evs []ev
	for _, f := range pidFiles {
		var b, e int64
		raw, err := os.ReadFile(f + ".interval")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fmt.Sscan(string(raw), &b, &e); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev{b, +1}, ev{e, -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].at != evs[j].at {
			return evs[i].at < evs[j].at
		}
		return evs[i].delta < evs[j].delta
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.delta
		peak = max(peak, cur)
	}
	if peak > 4 {
		t.Fatalf("%d handshakes overlapped; the bound is 4", peak)
	}
	if peak < 2 {
		t.Fatalf("starts did not run in parallel (peak %d)", peak)
	}
	for i, s := range g.Sidecars {
		if want := fmt.Sprintf("p%02d", i); s.Plugin.ID != want {
			t.Fatalf("sidecar %d is %s want %s", i, s.Plugin.ID, want)
		}
		if s.Generation != g.ID {
			t.Fatalf("sidecar generation %d != %d", s.Generation, g.ID)
		}
	}
}

func TestStalledOptionalRuntimeIsBoundedByTheBudget(t *testing.T) {
	t.Parallel()
	stalled, _ := fakePlugin(t, "a-stalled", "stall-init", nil)
	var plugins = []*Plugin{stalled}
	for i := range 6 {
		p, _ := fakePlugin(t, fmt.Sprintf("b%d", i), "ok", nil)
		plugins = append(plugins, p)
	}
	// The budget is shared by all seven starts: generous, so six healthy
	// starts on a loaded machine still fit beside the stalled one.
	m := newTestManager(20 * time.Second)
	defer m.Close()
	began := time.Now()
	g, err := m.Load(context.Background(), plugins)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("build with a stalled optional runtime took %s (budget 20s)", time.Since(began))
	if len(g.Sidecars) != 6 {
		t.Fatalf("started %d sidecars, want the 6 healthy ones", len(g.Sidecars))
	}
	if len(g.Warnings) != 1 || !strings.HasPrefix(g.Warnings[0], "a-stalled: optional extension runtime failed to start:") {
		t.Fatalf("warnings %q", g.Warnings)
	}
}

func TestRequiredFailureKeepsThePreviousGeneration(t *testing.T) {
	t.Parallel()
	good, _ := fakePlugin(t, "good", "ok", nil)
	m := newWaitingManager(t)
	defer m.Close()
	g1, err := m.Load(context.Background(), []*Plugin{good})
	if err != nil {
		t.Fatal(err)
	}
	good2, good2PID := fakePlugin(t, "good", "ok", nil)
	bad, _ := fakePlugin(t, "bad", "exit-at-once", nil)
	bad.Required = true
	_, err = m.Load(context.Background(), []*Plugin{good2, bad})
	var re *RequiredError
	if !errors.As(err, &re) || re.Plugin != "bad" {
		t.Fatalf("want RequiredError for bad, got %v", err)
	}
	if !strings.HasPrefix(err.Error(), `required extension runtime "bad" failed to start: extension sidecar bad startup handshake failed after`) {
		t.Fatalf("message %q", err)
	}
	if strings.Contains(err.Error(), "0123456789abcdefSECRET") {
		t.Fatalf("secret leaked: %v", err)
	}
	if m.Current() != g1 {
		t.Fatal("a failed build replaced the running generation")
	}
	s, _ := g1.Sidecar("good")
	if _, err := s.Call(context.Background(), extproto.MethodIntercept, extproto.InterceptParams{Event: extproto.InputReceive, Seq: s.NextSeq(), Payload: []byte(`{"text":"x"}`), TimeoutMillis: 5000}); err != nil {
		t.Fatalf("previous generation stopped answering: %v", err)
	}
	waitGone(t, good2PID)
}

func TestSlotConflictNamesBothPlugins(t *testing.T) {
	t.Parallel()
	a, aPID := fakePlugin(t, "alpha", "ok", nil)
	b, bPID := fakePlugin(t, "beta", "ok", nil)
	for _, p := range []*Plugin{a, b} {
		p.Replaces = []extproto.Slot{{Kind: extproto.SlotSystemPrompt}}
	}
	m := newWaitingManager(t)
	defer m.Close()
	_, err := m.Load(context.Background(), []*Plugin{b, a})
	if err == nil || err.Error() != `extension: replacement slot "system_prompt" claimed by [plugin alpha plugin beta]` {
		t.Fatalf("got %v", err)
	}
	waitGone(t, aPID)
	waitGone(t, bPID)
}

func TestReloadRetiresOldGenerationAfterLastPin(t *testing.T) {
	t.Parallel()
	p1, pid1 := fakePlugin(t, "p", "ok", nil)
	m := newWaitingManager(t)
	defer m.Close()
	g1, err := m.Load(context.Background(), []*Plugin{p1})
	if err != nil {
		t.Fatal(err)
	}
	pinned, release := m.Acquire()
	if pinned != g1 {
		t.Fatal("Acquire did not return the current generation")
	}
	p2, _ := fakePlugin(t, "p", "ok", nil)
	g2, err := m.Load(context.Background(), []*Plugin{p2})
	if err != nil {
		t.Fatal(err)
	}
	if g2.ID <= g1.ID {
		t.Fatalf("generation ids %d then %d", g1.ID, g2.ID)
	}
	// The pinned turn still talks to its generation.
	s, _ := g1.Sidecar("p")
	if _, err := s.Call(context.Background(), extproto.MethodIntercept, extproto.InterceptParams{Event: extproto.InputReceive, Seq: s.NextSeq(), Payload: []byte(`{"text":"x"}`), TimeoutMillis: 5000}); err != nil {
		t.Fatalf("pinned generation unusable: %v", err)
	}
	if !alive(t, pid1) {
		t.Fatal("old sidecar stopped while pinned")
	}
	release()
	select {
	case <-g1.Closed():
	case <-time.After(15 * time.Second):
		t.Fatal("old generation never closed")
	}
	waitGone(t, pid1)
}

// fakeBridge is a host process that starts one sidecar and waits to be
// killed, for the SIGKILL orphan test.
func fakeBridge() int {
	exe, _ := os.Executable()
	p := &Plugin{ID: "orphan", Root: "/", Version: "1", Runtime: manifest.Runtime{Command: exe, Env: map[string]string{envFakeMode: "ignore-shutdown", envFakePID: os.Getenv(envFakePID) + ".sidecar"}}}
	m := NewManager(ManagerOptions{SessionID: "s", WorkspaceRoot: "/"})
	if _, err := m.Load(context.Background(), []*Plugin{p}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("ready")
	select {}
}

func TestSIGKILLOfTheBridgeLeavesNoSidecar(t *testing.T) {
	t.Parallel()
	exe, _ := os.Executable()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envFakeMode+"=bridge", envFakePID+"="+pidFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("bridge did not get ready: %q %v", buf, err)
	}
	tree := []string{pidFile + ".sidecar", pidFile + ".sidecar.grandchild", pidFile + ".sidecar.setsid"}
	reapLeftovers(t, tree...)
	for _, f := range tree {
		waitFile(t, f)
		if !alive(t, f) {
			t.Fatalf("%s not running", f)
		}
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	for _, f := range tree {
		waitGone(t, f)
	}
}

// TestKillEndsAStuckClose: Kill ends every tree at once — the sidecar, a
// grandchild ignoring SIGTERM, one that called setsid — while Close waits
// on a sidecar that never answers extension/shutdown, and Close returns.
func TestKillEndsAStuckClose(t *testing.T) {
	t.Parallel()
	p, pidFile := fakePlugin(t, "stuck", "ignore-shutdown", nil)
	tree := []string{pidFile, pidFile + ".grandchild", pidFile + ".setsid"}
	reapLeftovers(t, tree...)
	m := NewManager(ManagerOptions{SessionID: "s", WorkspaceRoot: "/ws", ShutdownTimeout: time.Hour})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := m.Load(ctx, []*Plugin{p}); err != nil {
		t.Fatal(err)
	}
	for _, f := range tree {
		waitFile(t, f)
	}
	closed := make(chan struct{})
	go func() { m.Close(); close(closed) }()
	m.Kill(reapWait)
	for _, f := range tree {
		if alive(t, f) {
			t.Errorf("%s alive after Kill returned", f)
		}
	}
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close still waiting after Kill (its shutdown timeout is an hour)")
	}
	if _, err := m.Load(ctx, []*Plugin{p}); !errors.Is(err, ErrManagerClosed) {
		t.Fatalf("Load after Kill: %v", err)
	}
}

func waitGone(t *testing.T, pidFile string) {
	t.Helper()
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for alive(t, pidFile) {
		if time.Now().After(deadline) {
			t.Fatalf("process of %s still alive", pidFile)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
