package contentref

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the whole process has used, user and system,
// so a benchmark's ratio holds on a machine whose other load steals wall
// time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
