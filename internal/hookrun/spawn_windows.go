//go:build windows

package hookrun

import (
	"os/exec"
	"syscall"
)

const createNoWindow = 0x08000000

// noWindow keeps the bash probe from opening a console window.
func noWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow}
}
