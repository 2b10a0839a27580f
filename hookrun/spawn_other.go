//go:build !unix && !windows

package hookrun

import "os/exec"

func ownTree(*exec.Cmd, string) {}

func killTree(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func sweepTree(*exec.Cmd) {}
