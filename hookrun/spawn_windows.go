//go:build windows

package hookrun

import (
	"os/exec"
	"strconv"
	"syscall"
)

const createNoWindow = 0x08000000

// ownTree hides the hook's window and, when the reference needs cmd.exe's
// own parsing, hands CreateProcess the raw command line.
func ownTree(cmd *exec.Cmd, cmdLine string) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow, CmdLine: cmdLine}
}

// killTree ends the hook and its descendants with taskkill /T, then the
// hook itself, in the background since Kill must not block. Job objects
// (proctree) replace this at merge.
func killTree(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	tk := exec.Command("taskkill", "/F", "/T", "/PID", strconv.Itoa(cmd.Process.Pid))
	tk.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow}
	go func() {
		_ = tk.Run()
		_ = cmd.Process.Kill()
	}()
}

// sweepTree does nothing: after the hook is reaped its pid may be reused,
// so a taskkill walk could hit a stranger.
func sweepTree(*exec.Cmd) {}
