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
