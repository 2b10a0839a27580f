//go:build linux || darwin

package proctree

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// startDetached starts exe with env in a session (and group) of its own
// and returns its pid as the host sees it (ownPid).
func startDetached(exe string, env []string) (int, error) {
	cmd := exec.Command(exe)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	return ownPid(cmd.Process.Pid), nil
}

// procWatch follows one process that was alive when it was made.
type procWatch struct{ pid int }

// watchProcess follows pid; if the test leaves it alive, its cleanup
// kills it.
func watchProcess(t *testing.T, pid int) *procWatch {
	t.Helper()
	w := &procWatch{pid: pid}
	if !w.alive() {
		t.Fatalf("process %d is not running", pid)
	}
	t.Cleanup(func() {
		if w.alive() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return w
}

// gone waits up to d for the process to be gone (a zombie counts as gone).
func (w *procWatch) gone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for w.alive() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}
