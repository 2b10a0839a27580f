package proctree

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// startDetached starts exe with env in a console process group of its
// own, without a console, asking to leave the job as well: that part must
// be refused (the job does not allow breakaway), and the process then
// starts in the job. If it was not refused, the process escaped, and the
// test that watches it fails.
func startDetached(exe string, env []string) (int, error) {
	flags := uint32(windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS)
	start := func(f uint32) (int, error) {
		cmd := exec.Command(exe)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: f}
		if err := cmd.Start(); err != nil {
			return 0, err
		}
		return cmd.Process.Pid, nil
	}
	if pid, err := start(flags | windows.CREATE_BREAKAWAY_FROM_JOB); err == nil {
		return pid, nil
	}
	return start(flags)
}

// procWatch holds a handle to one process that was alive when it was
// made, so its pid cannot name another process meanwhile.
type procWatch struct {
	pid int
	h   windows.Handle
}

// watchProcess follows pid; if the test leaves it alive, its cleanup
// terminates it.
func watchProcess(t *testing.T, pid int) *procWatch {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		t.Fatalf("process %d: %v", pid, err)
	}
	w := &procWatch{pid: pid, h: h}
	if w.gone(0) {
		t.Fatalf("process %d is not running", pid)
	}
	t.Cleanup(func() {
		if !w.gone(0) {
			_ = windows.TerminateProcess(h, 1)
		}
		_ = windows.CloseHandle(h)
	})
	return w
}

// gone waits up to d for the process to have exited.
func (w *procWatch) gone(d time.Duration) bool {
	ev, err := windows.WaitForSingleObject(w.h, uint32(d.Milliseconds()))
	return err == nil && ev == windows.WAIT_OBJECT_0
}
