package proctree

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// selfExe is this binary, even if it was replaced on disk since.
func selfExe() (string, error) { return "/proc/self/exe", nil }

// programAttr puts the program in its own group and ends it with the
// supervisor (forked from the main thread, which lives as long as the
// supervisor).
func programAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// watcher makes the supervisor a child subreaper: every descendant of the
// program that is orphaned — one that called setsid(2) included — is
// reparented to it rather than to init, and so stays within reach.
type watcher struct {
	chld chan os.Signal
}

func newWatcher() (*watcher, error) {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return nil, fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", e)
	}
	w := &watcher{chld: make(chan os.Signal, 1)}
	signal.Notify(w.chld, syscall.SIGCHLD)
	return w, nil
}

// watch returns once the program has ended (it stays a zombie: waitid
// with WNOWAIT), the lifeline is lost or a signal arrives, reaping the
// adopted descendants that end meanwhile.
func (w *watcher) watch(pid int, lost <-chan struct{}, stop <-chan os.Signal) {
	exited := make(chan struct{})
	go func() {
		waitNoReap(pid)
		close(exited)
	}()
	for {
		select {
		case <-exited:
			return
		case <-lost:
			return
		case <-stop:
			return
		case <-w.chld:
			reapOrphans(pid)
		}
	}
}

// end kills the program's group, the program included, reaps it, then
// kills every adopted descendant left.
func (w *watcher) end(pid int, cmd *exec.Cmd) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	_ = cmd.Wait()
	killOrphans()
}

// pPID is waitid's P_PID.
const pPID = 1

// waitNoReap waits until pid has ended without reaping it.
func waitNoReap(pid int) {
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|syscall.WNOWAIT, 0, 0)
		if e != syscall.EINTR {
			return
		}
	}
}

// reapOrphans reaps the adopted descendants that have ended, leaving the
// sidecar (os/exec waits for it) and the living alone.
func reapOrphans(sidecar int) {
	for _, pid := range children() {
		if pid != sidecar {
			_, _ = syscall.Wait4(pid, nil, syscall.WNOHANG, nil)
		}
	}
}

// killOrphans kills and reaps every child of the supervisor — after the
// sidecar is reaped, only adopted descendants — until none is left: each
// one killed hands its own children to us. A child's pid cannot be reused
// before we reap it, so a kill never reaches a stranger.
func killOrphans() {
	for {
		kids := children()
		if len(kids) == 0 {
			return
		}
		for _, pid := range kids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		for _, pid := range kids {
			for {
				if _, err := syscall.Wait4(pid, nil, 0, nil); err != syscall.EINTR {
					break
				}
			}
		}
	}
}

// children lists this process's children: from each thread's
// /proc/self/task/<tid>/children where the kernel has them, else by
// reading every process's parent from /proc.
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var kids []int
	for _, task := range tasks {
		raw, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			return scanChildren()
		}
		for f := range strings.FieldsSeq(string(raw)) {
			if pid, err := strconv.Atoi(f); err == nil {
				kids = append(kids, pid)
			}
		}
	}
	if len(tasks) == 0 {
		return scanChildren()
	}
	return kids
}

// scanChildren lists this process's children by reading every process's
// parent from /proc.
func scanChildren() []int {
	self := os.Getpid()
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var kids []int
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if ppid, ok := statPPID(stat); ok && ppid == self {
			kids = append(kids, pid)
		}
	}
	return kids
}

// statPPID returns the parent pid in a /proc/<pid>/stat line, "pid (comm)
// state ppid ...". comm is the process's own choice of up to 16 bytes and
// may hold spaces and parentheses, so the fields start after the last ')'.
func statPPID(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(string(f[1]))
	if err != nil || ppid < 0 {
		return 0, false
	}
	return ppid, true
}
