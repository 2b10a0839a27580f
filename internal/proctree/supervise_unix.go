//go:build linux || darwin

package proctree

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux and macOS a program runs under a supervisor: this very binary,
// re-executed in supervisor mode (selfExe, then init below). It holds the
// read end of a lifeline pipe whose only write end the owner holds:
// closing it (Kill), or the owner ending in any way, SIGKILL included,
// makes the supervisor kill the program's group and then every
// descendant it can find (the OS file says how), until none is left. The
// program's own exit does the same. The owner never signals anything
// itself.
const (
	superviseArg = "rx-bridge-supervise-v1" // argv[1] of a supervisor
	superviseEnv = "RX_BRIDGE_SUPERVISE"    // "1" in a supervisor's environment only
)

// sysTree is the owner's hold on one supervisor or, on Linux, on a
// program that is the init of its own PID namespace (namespace_linux.go).
type sysTree struct {
	cmd      *exec.Cmd // the supervisor, or the namespace's init
	lifeline *os.File  // write end; closing it ends the tree; nil for a namespace
	killOnce sync.Once
}

// kill closes the supervisor's lifeline, or SIGKILLs a namespace's init
// (through its pidfd: never a reused pid), which ends every process of
// the namespace.
func (s *sysTree) kill() {
	s.killOnce.Do(func() {
		if s.lifeline != nil {
			_ = s.lifeline.Close()
		} else {
			_ = s.cmd.Process.Kill()
		}
	})
}

// startSupervised starts the supervisor, which starts path with stdin,
// stdout and stderr, and returns once the program runs (or could not be
// started: the error is exec's, as the supervisor reported it).
func startSupervised(c Command) (*Tree, error) {
	path, args, env, stdin, stdout, stderr := c.Path, c.Args, c.Env, c.Stdin, c.Stdout, c.Stderr
	exe, err := selfExe()
	if err != nil {
		return nil, fmt.Errorf("%w: the supervisor's binary: %w", ErrUnavailable, err)
	}
	lifeR, lifeW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("lifeline pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		closeAll(lifeR, lifeW)
		return nil, fmt.Errorf("supervisor report pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path: exe,
		Args: append([]string{"rx-bridge-supervisor", superviseArg, path}, args...),
		Env:  append(withoutVar(env, superviseEnv), superviseEnv+"=1"),
		// The program inherits the supervisor's working directory.
		Dir:    c.Dir,
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		// fd 3 and fd 4 in the supervisor.
		ExtraFiles: []*os.File{lifeR, repW},
		// Its own group, so a terminal's Ctrl-C never reaches it, and no
		// parent-death signal: it must outlive the owner to clean up.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	closeAll(lifeR, repW)
	if err != nil {
		closeAll(lifeW, repR)
		return nil, fmt.Errorf("start the sidecar's supervisor: %w", err)
	}
	t := &Tree{sys: sysTree{cmd: cmd, lifeline: lifeW}, done: make(chan struct{})}
	rd := bufio.NewReader(repR)
	line, _ := rd.ReadString('\n')
	if pid, ok := strings.CutPrefix(strings.TrimSpace(line), "pid "); ok {
		t.pid, err = strconv.Atoi(pid)
	} else {
		msg, _ := strings.CutPrefix(strings.TrimSpace(line), "error ")
		if msg == "" {
			msg = "the supervisor ended before starting the sidecar"
		}
		err = errors.New(msg)
	}
	if err != nil {
		t.Kill()
		_ = cmd.Wait()
		_ = repR.Close()
		return nil, err
	}
	go func() {
		last, _ := rd.ReadString('\n') // "exit <code> <state>", then EOF as it exits
		waitErr := cmd.Wait()
		_ = repR.Close()
		t.Kill() // release the lifeline
		t.code = -1
		if rest, ok := strings.CutPrefix(strings.TrimSpace(last), "exit "); ok {
			code, state, _ := strings.Cut(rest, " ")
			if n, err := strconv.Atoi(code); err == nil {
				t.code = n
			}
			t.status = state
		} else if waitErr != nil {
			t.status = "supervisor " + waitErr.Error()
		} else {
			t.status = "supervisor ended without a report"
		}
		close(t.done)
	}()
	return t, nil
}

// init turns this binary, re-executed by start, into a supervisor before
// anything else runs. Any program that links proctree can therefore own
// process trees, test binaries included.
func init() {
	if len(os.Args) > 2 && os.Args[1] == superviseArg && os.Getenv(superviseEnv) == "1" {
		os.Exit(supervise(os.Args[2:]))
	}
}

// supervise runs argv (the program) on the inherited stdio and owns its
// tree: fd 3 is the lifeline (its end, EOF or a byte, means "end the
// tree"), fd 4 the report to the owner: "pid N" or "error MSG" at start,
// "exit CODE STATE" at the end. It returns once no descendant is left.
func supervise(argv []string) int {
	// init runs on the main thread, which lives as long as the process:
	// on Linux the program's parent-death signal fires only when the
	// supervisor itself dies (it is killed from outside; it never exits
	// otherwise before the program is reaped).
	runtime.LockOSThread()
	runtime.GOMAXPROCS(1)
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	lifeline, report := os.NewFile(3, "lifeline"), os.NewFile(4, "report")
	fail := func(err error) int {
		fmt.Fprintf(report, "error %s\n", strings.ReplaceAll(err.Error(), "\n", " "))
		return 1
	}
	w, err := newWatcher()
	if err != nil {
		return fail(err)
	}
	// A signal to the supervisor ends the tree as the lifeline does.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = withoutVar(os.Environ(), superviseEnv)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = programAttr()
	if err := cmd.Start(); err != nil {
		return fail(err)
	}
	pid := cmd.Process.Pid
	fmt.Fprintf(report, "pid %d\n", pid)
	// The program's pipes must close when it and its descendants are
	// gone: the owner reads EOF from them.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		for fd := range 3 {
			_ = unix.Dup2(int(null.Fd()), fd)
		}
		_ = null.Close()
	}

	// Give back what the binary's package initialisation allocated: the
	// supervisor lives as long as its program and needs almost nothing.
	debug.FreeOSMemory()

	lost := make(chan struct{})
	go func() {
		_, _ = lifeline.Read(make([]byte, 1))
		close(lost)
	}()
	// The program stays unreaped (a zombie once it ends) until cmd.Wait in
	// end: its pid, and so the number of its process group, cannot be
	// reused before the group is killed.
	w.watch(pid, lost, stop)
	w.end(pid, cmd)
	fmt.Fprintf(report, "exit %d %s\n", cmd.ProcessState.ExitCode(), cmd.ProcessState)
	return 0
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

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
