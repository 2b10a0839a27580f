//go:build unix

package exthost

import (
	"syscall"
	"time"
)

// selfCPU is the CPU time this process has used (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// setsid makes this process the leader of a new session (and group).
func setsid() error {
	_, err := syscall.Setsid()
	return err
}
