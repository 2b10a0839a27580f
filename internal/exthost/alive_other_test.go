//go:build unix && !linux

package exthost

import "syscall"

// pidAlive: pid exists (a zombie counts as alive here).
func pidAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
