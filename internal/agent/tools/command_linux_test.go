package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunCommandKillsGroupOnCancel starts a command whose child ignores
// nothing but outlives its parent, cancels the call, and checks that the
// child is gone too.
func TestRunCommandKillsGroupOnCancel(t *testing.T) {
	t.Parallel()
	ws := tree(t, nil)
	pidFile := filepath.Join(ws.Root, "child.pid")
	script := fmt.Sprintf("sleep 60 & echo $! > %s; wait", pidFile)
	tool, _ := Builtins().Lookup("run_command")
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tool.Run(ctx, &Env{Workspace: ws, Timeout: time.Minute}, args)
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; {
		if time.Now().After(deadline) {
			t.Fatal("child never started")
		}
		raw, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(raw)))
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "[killed: cancelled]") {
			t.Errorf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run_command did not return after cancel")
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("child %d survived the cancel", pid)
		}
		time.Sleep(10 * time.Millisecond)
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
