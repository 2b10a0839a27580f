package exthost

import (
	"time"

	"golang.org/x/sys/windows"
)

// selfCPU is not measured here: the benchmarks report 0 CPU time.
func selfCPU() time.Duration { return 0 }

// setsid: a Windows process cannot leave its job by itself (its parent
// would have to ask for breakaway, which the job refuses); it leaves its
// console, if it has one, the nearest thing to leaving a session.
func setsid() error {
	_, _, _ = windows.NewLazySystemDLL("kernel32.dll").NewProc("FreeConsole").Call()
	return nil
}

// pidAlive: pid names a process that has not exited.
func pidAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
