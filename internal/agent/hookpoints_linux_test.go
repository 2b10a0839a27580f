package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether pid is a live (not zombie) process, from /proc.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// pidIn reads the pid a hook wrote to f.
func pidIn(t *testing.T, f string) int {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatalf("no pid in %s: %v", f, err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for pid to end: the kill is synchronous, only the
// reaping of an orphan is not, so the generous bound only fails a kill
// that did not happen.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d outlived its hook", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A PostToolUse hook that hangs past its timeout is killed with its whole
// tree; the turn goes on and ends normally, the timeout shown as a
// warning.
func TestHookTimeoutKillsTreeAndTurnContinues(t *testing.T) {
	t.Parallel()
	// The hook blocks once its grandchild wrote its pid. A timeout that
	// fires before that (a slow machine) proves nothing, so the attempt is
	// repeated with a longer one: no wall-clock guess decides the test.
	for timeout := 200; ; timeout *= 4 {
		dir := t.TempDir()
		gc := filepath.Join(dir, "grandchild")
		r := loadHooks(t, nil, hookPackage(t, "slow", map[string][]map[string]any{
			"PostToolUse": {hookEntry(filepath.Join(dir, "log"), map[string]string{envHookGrandchild: gc, envHookBlock: "1"}, map[string]any{"timeout": timeout})},
		}))
		prov := newScripted(calls(call("c1", "list_files", "{}")), answer("done"))
		h := newHarness(t, prov, withHooks(r))
		s := h.session()
		res, err := s.Prompt(ctx(t), "go")
		if err != nil || res.Stop != StopEndTurn {
			t.Fatalf("Prompt = %+v, %v", res, err)
		}
		if c := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolCompleted); len(c) != 1 {
			t.Fatalf("the tool did not complete: %+v", c)
		}
		if w := noticesOf(h.updates.of(s.ID()), NoticeWarning); len(w) != 1 || !strings.Contains(w[0], "timed out after") {
			t.Fatalf("warnings %q", w)
		}
		if _, err := os.Stat(gc); err != nil {
			continue
		}
		waitGone(t, pidIn(t, gc))
		return
	}
}

// When the agent closes, no hook process of its sessions is left: the
// SessionEnd and Notification hooks ran to their end with their trees;
// an async hook, which belongs to the runtime generation, ends when the
// generation's runner closes.
func TestNoHookProcessRemainsAfterAgentClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	f := func(name string) string { return filepath.Join(dir, name) }
	r := loadHooks(t, nil, hookPackage(t, "procs", map[string][]map[string]any{
		"SessionEnd":   {hookEntry(log, map[string]string{envHookPidfile: f("end"), envHookGrandchild: f("end-gc")}, nil)},
		"Notification": {hookEntry(log, map[string]string{envHookPidfile: f("note"), envHookGrandchild: f("note-gc")}, nil)},
		"Stop":         {hookEntry(log, map[string]string{envHookPidfile: f("stop"), envHookGrandchild: f("stop-gc"), envHookBlock: "1"}, map[string]any{"async": true, "timeout": 600000})},
	}))
	prov := newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "new.txt", "content": "x"})), answer("done"))
	h := newHarness(t, prov, withHooks(r), withApproval(ApproveAsk))
	s := h.session()
	if _, err := s.Prompt(ctx(t), "go"); err != nil {
		t.Fatal(err)
	}
	if err := h.agent.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"end", "end-gc", "note", "note-gc"} {
		waitGone(t, pidIn(t, f(name)))
	}
	// The async Stop hook may still be starting: wait for its grandchild.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(f("stop-gc")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the async Stop hook never started its grandchild")
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Close()
	waitGone(t, pidIn(t, f("stop")))
	waitGone(t, pidIn(t, f("stop-gc")))
}
