package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// runTree runs run_command on the tree of role (cmdtree_linux_test.go) in
// the background; its pid files go to the returned folder.
func runTree(t *testing.T, ctx context.Context, role string, timeoutSeconds int) (dir string, done <-chan treeResult) {
	t.Helper()
	ws := tree(t, nil)
	dir = t.TempDir()
	args := map[string]any{"command": treeCommand(role, dir)}
	if timeoutSeconds > 0 {
		args["timeoutSeconds"] = timeoutSeconds
	}
	raw, _ := json.Marshal(args)
	tool, _ := Builtins().Lookup("run_command")
	ch := make(chan treeResult, 1)
	go func() {
		out, err := tool.Run(ctx, &Env{Workspace: ws, Timeout: 10 * time.Minute}, raw)
		ch <- treeResult{out, err}
	}()
	return dir, ch
}

type treeResult struct {
	out string
	err error
}

// checkTreeGone fails unless every process of the tree in dir was started
// and is gone (not even a zombie): run_command has returned, and it
// returns only once the tree is reaped.
func checkTreeGone(t *testing.T, dir string) {
	t.Helper()
	pids := treePids(dir)
	if len(pids) != len(treeRoles) {
		t.Fatalf("the tree did not come up whole: %v", pids)
	}
	for role, pid := range pids {
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			t.Errorf("%s (pid %d) survived run_command", role, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestRunCommandCancelKillsTree: cancelling a call kills its whole tree,
// a child that ignores SIGTERM and one that left the session with setsid
// included, before the call returns.
func TestRunCommandCancelKillsTree(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir, done := runTree(t, ctx, "root", 0)
	awaitPidFile(filepath.Join(dir, "root.pid"))
	cancel()
	r := <-done
	if r.err == nil || !strings.Contains(r.err.Error(), "[killed: cancelled]") {
		t.Errorf("err = %v", r.err)
	}
	checkTreeGone(t, dir)
}

// TestRunCommandTimeoutKillsTree: the same for the call's own timeout.
// The timeout only has to outlast the tree's start.
func TestRunCommandTimeoutKillsTree(t *testing.T) {
	t.Parallel()
	secs := max(5, int(testenv.Scale(5*time.Second)/time.Second))
	dir, done := runTree(t, context.Background(), "root", secs)
	r := <-done
	if r.err == nil || !strings.Contains(r.err.Error(), fmt.Sprintf("[killed after %ds: timed out]", secs)) {
		t.Errorf("err = %v", r.err)
	}
	checkTreeGone(t, dir)
}

// TestRunCommandExitEndsTreeAndOutput: a command that exits while its
// descendants (one in a session of its own) hold its output open returns
// at once, with its output and status, and takes them along.
func TestRunCommandExitEndsTreeAndOutput(t *testing.T) {
	t.Parallel()
	dir, done := runTree(t, context.Background(), "leave", 0)
	r := <-done
	if r.err != nil || !strings.HasPrefix(r.out, "root up\n[exit status 0 after") {
		t.Errorf("out = %q, err = %v", r.out, r.err)
	}
	checkTreeGone(t, dir)
}

// TestRunCommandKillsGroupOnCancel starts a command whose child ignores
// nothing but outlives its parent, cancels the call, and checks that the
// child is gone too.
func TestRunCommandKillsGroupOnCancel(t *testing.T) {
	t.Parallel()
	ws := tree(t, nil)
	pidFile := filepath.Join(ws.Root, "child.pid")
	// The child writes its own pid as /proc names it (the command may run
	// in a PID namespace of its own, where $! is that namespace's number).
	script := fmt.Sprintf("sh -c 'read -r p _ < /proc/self/stat; echo $p > %s.tmp; mv %s.tmp %s; exec sleep 60' & wait", pidFile, pidFile, pidFile)
	tool, _ := Builtins().Lookup("run_command")
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool.Run(ctx, &Env{Workspace: ws, Timeout: time.Minute}, args)
		done <- err
	}()
	pid := awaitPidFile(pidFile)
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "[killed: cancelled]") {
		t.Errorf("err = %v", err)
	}
	if syscall.Kill(pid, 0) == nil && !zombie(pid) {
		t.Errorf("child %d survived the cancel", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

func zombie(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(stat), ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
