package exthost

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// On Linux a sidecar runs under a supervisor: this very binary, re-executed
// from /proc/self/exe in supervisor mode (supervise_linux.go). The
// supervisor is a child subreaper, so every descendant of the sidecar that
// is orphaned — one that called setsid(2) included — is reparented to it
// rather than to init. It holds the read end of a lifeline pipe whose only
// write end the host holds: closing it (kill), or the host ending in any
// way, SIGKILL included, makes the supervisor kill the sidecar's group and
// then every descendant it can reach, until none is left. The sidecar's own
// exit does the same. The host never signals anything itself.
const (
	superviseArg = "rx-bridge-supervise-v1" // argv[1] of a supervisor
	superviseEnv = "RX_BRIDGE_SUPERVISE"    // "1" in a supervisor's environment only
)

// procTree is the host's hold on one supervisor and so on one sidecar tree.
type procTree struct {
	cmd      *exec.Cmd // the supervisor
	lifeline *os.File  // write end; closing it ends the tree
	sidecar  int       // the sidecar's pid

	done     chan struct{} // closed once the supervisor has been reaped
	report   string        // the sidecar's end as the supervisor saw it
	killOnce sync.Once
}

// startTree starts the supervisor, which starts path with stdin, stdout
// and stderr, and returns once the sidecar runs (or could not be started:
// the error is exec's, e.g. "fork/exec /p/bin/tool: permission denied").
func startTree(path string, args, env []string, stdin, stdout, stderr *os.File) (*procTree, error) {
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
		Path:   "/proc/self/exe", // this binary, even if it was replaced on disk since
		Args:   append([]string{"rx-bridge-supervisor", superviseArg, path}, args...),
		Env:    append(withoutVar(env, superviseEnv), superviseEnv+"=1"),
		Stdin:  stdin,
		Stdout: stdout,
		Stderr: stderr,
		// fd 3 and fd 4 in the supervisor.
		ExtraFiles: []*os.File{lifeR, repW},
		// Its own group, so a terminal's Ctrl-C never reaches it, and no
		// parent-death signal: it must outlive the host to clean up.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	closeAll(lifeR, repW)
	if err != nil {
		closeAll(lifeW, repR)
		return nil, fmt.Errorf("start the sidecar's supervisor: %w", err)
	}
	t := &procTree{cmd: cmd, lifeline: lifeW, done: make(chan struct{})}
	rd := bufio.NewReader(repR)
	line, _ := rd.ReadString('\n')
	if pid, ok := strings.CutPrefix(strings.TrimSpace(line), "pid "); ok {
		t.sidecar, err = strconv.Atoi(pid)
	} else {
		msg, _ := strings.CutPrefix(strings.TrimSpace(line), "error ")
		if msg == "" {
			msg = "the supervisor ended before starting the sidecar"
		}
		err = errors.New(msg)
	}
	if err != nil {
		t.kill()
		_ = cmd.Wait()
		_ = repR.Close()
		return nil, err
	}
	go func() {
		last, _ := rd.ReadString('\n') // "exit <state>", then EOF as it exits
		waitErr := cmd.Wait()
		_ = repR.Close()
		t.kill() // release the lifeline
		if state, ok := strings.CutPrefix(strings.TrimSpace(last), "exit "); ok {
			t.report = state
		} else if waitErr != nil {
			t.report = "supervisor " + waitErr.Error()
		} else {
			t.report = "supervisor ended without a report"
		}
		close(t.done)
	}()
	return t, nil
}

func (t *procTree) kill() { t.killOnce.Do(func() { _ = t.lifeline.Close() }) }

func (t *procTree) exited() <-chan struct{} { return t.done }

// status is valid once exited is closed.
func (t *procTree) status() string { return t.report }

func (t *procTree) pid() int { return t.sidecar }
