//go:build unix

package hookrun

import (
	"os/exec"
	"syscall"
)

// ownTree starts the hook in a process group of its own, so the group is
// its tree.
func ownTree(cmd *exec.Cmd, _ string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killTree kills the hook's process group, then the hook itself in case
// the group is gone. A descendant that left the group (setsid) escapes:
// owning those is proctree's job.
func killTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}

// sweepTree kills what is left of the group after the hook exited.
func sweepTree(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
