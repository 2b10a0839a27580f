package hookrun

import (
	"context"
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

func readPid(t *testing.T, f string) int {
	t.Helper()
	waitFile(t, f)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// waitGone waits for pid to end; the tree kill is asynchronous only in
// that the kernel reaps the orphan, so a generous bound only fails a
// broken kill.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d survived its hook", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestHookTimeoutKillsGrandchild(t *testing.T) {
	t.Parallel()
	// The hook blocks once its grandchild wrote its pid. A timeout that
	// fires before that (a slow machine) proves nothing, so the attempt
	// is repeated with a longer one: no wall-clock guess decides the test.
	for timeout := 100; ; timeout *= 4 {
		gc := filepath.Join(t.TempDir(), "grandchild")
		pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {
			helperHook(map[string]string{"HOOK_GRANDCHILD": gc, "HOOK_BLOCK": "1"}, map[string]any{"timeout": timeout}),
		}}, nil)
		r := load(t, Sources{Packages: []Package{pkg}})
		rep := r.Run(context.Background(), PreToolUse, Payload{ToolName: "x"})
		if !rep.Blocked || !rep.Results[0].TimedOut {
			t.Fatalf("report %+v", rep.Results)
		}
		if _, err := os.Stat(gc); err != nil {
			continue
		}
		waitGone(t, readPid(t, gc))
		return
	}
}

// The hook exits at once; what it left behind goes with it.
func TestHookExitKillsGrandchild(t *testing.T) {
	t.Parallel()
	gc := filepath.Join(t.TempDir(), "grandchild")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {helperHook(map[string]string{"HOOK_GRANDCHILD": gc}, nil)}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	if rep := r.Run(context.Background(), PreToolUse, Payload{ToolName: "x"}); rep.Results[0].Decision != Pass {
		t.Fatalf("report %+v", rep.Results)
	}
	waitGone(t, readPid(t, gc))
}

func TestCloseKillsAsyncHookTree(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gc, pidFile := filepath.Join(dir, "gc"), filepath.Join(dir, "pid")
	pkg := v1Package(t, "p", map[string][]map[string]any{"SessionEnd": {
		helperHook(map[string]string{"HOOK_GRANDCHILD": gc, "HOOK_PIDFILE": pidFile, "HOOK_BLOCK": "1"}, map[string]any{"async": true, "timeout": 600000}),
	}}, nil)
	r, _ := Load(Sources{Packages: []Package{pkg}, Workspace: dir})
	r.Observe(context.Background(), SessionEnd, Payload{Reason: "other"})
	hook, grandchild := readPid(t, pidFile), readPid(t, gc)
	r.Close()
	waitGone(t, hook)
	waitGone(t, grandchild)
}
