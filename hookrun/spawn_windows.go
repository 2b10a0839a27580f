//go:build windows

package hookrun

import (
	"os/exec"
	"syscall"
)

const createNoWindow = 0x08000000

// ownTree hides the hook's window and, when the reference needs cmd.exe's
// own parsing, hands CreateProcess the raw command line.
func ownTree(cmd *exec.Cmd, cmdLine string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow, CmdLine: cmdLine}
}
