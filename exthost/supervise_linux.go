package exthost

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

// init turns this binary, re-executed by startTree, into a sidecar's
// supervisor before anything else runs. Any program that links exthost can
// therefore start sidecars, test binaries included.
func init() {
	if len(os.Args) > 2 && os.Args[1] == superviseArg && os.Getenv(superviseEnv) == "1" {
		os.Exit(supervise(os.Args[2:]))
	}
}

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

// supervise runs argv (the sidecar) on the inherited stdio and owns its
// tree: fd 3 is the lifeline (its end, EOF or a byte, means "end the
// tree"), fd 4 the report to the host: "pid N" or "error MSG" at start,
// "exit STATE" at the end. It returns once no descendant is left.
func supervise(argv []string) int {
	// init runs on the main thread, which lives as long as the process:
	// the sidecar's parent-death signal fires only when the supervisor
	// itself dies (it is killed from outside; it never exits otherwise
	// before the sidecar is reaped).
	runtime.LockOSThread()
	runtime.GOMAXPROCS(1)
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	lifeline, report := os.NewFile(3, "lifeline"), os.NewFile(4, "report")
	fail := func(err error) int {
		fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 1
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return fail(fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", e))
	}
	// A signal to the supervisor ends the tree as the lifeline does.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	chld := make(chan os.Signal, 1)
	signal.Notify(chld, syscall.SIGCHLD)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = withoutVar(os.Environ(), superviseEnv)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	pid := cmd.Process.Pid
	fmt.Fprintf(report, "pid %d\n", pid)
	// The sidecar's pipes must close when it and its descendants are
	// gone: the host reads EOF from them.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := range 3 {
			_ = syscall.Dup3(int(null.Fd()), fd, 0)
		}
		_ = null.Close()
	}

	// Give back what the binary's package initialisation allocated: the
	// supervisor lives as long as its sidecar and needs almost nothing.
	debug.FreeOSMemory()

	// exited closes when the sidecar has ended, but it stays a zombie
	// (WNOWAIT) until cmd.Wait below: its pid, and so the number of its
	// process group, cannot be reused before the group is killed.
	exited := make(chan struct{})
	go func() {
		waitNoReap(pid)
		close(exited)
	}()
	lost := make(chan struct{})
	go func() {
		_, _ = lifeline.Read(make([]byte, 1))
		close(lost)
	}()
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-lost:
			break wait
		case <-stop:
			break wait
		case <-chld:
			reapOrphans(pid)
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL) // the sidecar's group, itself included
	_ = cmd.Wait()
	killOrphans()
	fmt.Fprintf(report, "exit %s\n", cmd.ProcessState)
	return 0
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

// withoutVar returns env without any entry for key.
func withoutVar(env []string, key string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, key+"=") {
			out = append(out, kv)
		}
	}
	return out
}
