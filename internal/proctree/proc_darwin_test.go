package proctree

import "golang.org/x/sys/unix"

// alive: the process exists and is not a zombie.
func (w *procWatch) alive() bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", w.pid)
	return err == nil && int(kp.Proc.P_pid) == w.pid && kp.Proc.P_stat != sZOMB
}

// ownPid is pid: macOS has no PID namespaces.
func ownPid(pid int) int { return pid }
