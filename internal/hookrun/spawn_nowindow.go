//go:build !windows

package hookrun

import "os/exec"

// noWindow: only Windows opens a console window for a child.
func noWindow(*exec.Cmd) {}
