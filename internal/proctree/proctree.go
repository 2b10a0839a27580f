// Package proctree owns "start a program and own its whole process tree on
// every OS": it starts a program on three files given as its stdio and
// makes sure that nothing the program ever starts outlives it, its owner's
// Kill, or its owner's process, however that ends (SIGKILL and
// TerminateProcess included). It imports nothing of this module; the
// extension host's sidecars use it, and so can anything else that runs
// untrusted helper programs (hooks, MCP servers).
//
// It never sends a graceful signal: a graceful stop is the owner closing
// the program's stdin; Kill is the hard end of the whole tree.
//
// One file per OS holds the calls (docs/ARCHITECTURE.md, "Process
// ownership and exit paths"):
//
//   - Linux: a supervisor per tree — the owner's binary re-executed —
//     that is a child subreaper, holds a lifeline pipe only the owner can
//     write and kills the program's group and every adopted descendant
//     when it closes or the program exits. With RX_BRIDGE_PROCTREE=namespace
//     (opt-in), where the kernel allows it: the program as the init of a
//     PID namespace of its own (in a user namespace mapping the caller's
//     ids to themselves), with SIGKILL as its parent-death signal, so the
//     kernel ends the namespace with it; no supervisor.
//   - macOS: the same supervisor without a subreaper: it follows the
//     program's descendants through kqueue fork events and the kernel's
//     process list, so one that leaves the group is still found.
//   - Windows: a Job Object with kill-on-close per tree, the program
//     started suspended and resumed only once it is in the job.
//   - Elsewhere Start refuses: an unowned tree is never started.
package proctree

import (
	"errors"
	"os"
)

// ErrUnavailable is wrapped by every error of Start that means the tree
// could not be owned on this system (as opposed to the program not
// starting at all): the program was not left running.
var ErrUnavailable = errors.New("process tree tracking is unavailable")

// Tree is the hold on one program's process tree.
type Tree struct {
	sys    sysTree // the OS's hold, in the OS's file
	pid    int
	done   chan struct{} // closed once the whole tree is gone and reaped
	status string        // set before done closes
	code   int           // the exit code, -1 for none; set before done closes
}

// Command is a program to start: Path (absolute) with Args (not
// including the program name) and the whole environment Env, in Dir (""
// for the caller's working directory), on Stdin, Stdout and Stderr.
type Command struct {
	Path                  string
	Args, Env             []string
	Dir                   string
	Stdin, Stdout, Stderr *os.File
	// CmdLine, on Windows only, is the raw command line CreateProcess gets
	// instead of Path and Args quoted the Go way (cmd.exe parses its own
	// command line); "" there, and everywhere else, means Path and Args.
	CmdLine string
}

// Start starts c and takes ownership of it and of every
// process it starts, including ones that leave its process group or
// session, for as long as the caller lives and after it dies, however it
// dies. It returns once the program runs, or the error that kept it from
// starting (exec's, e.g. "fork/exec /p/bin/tool: permission denied").
//
// The caller keeps its own copies of the three files: it should close
// the ends it handed over once Start returns, so EOF propagates.
func Start(c Command) (*Tree, error) {
	return start(c)
}

// Kill ends the whole tree. It is idempotent and never blocks; Exited
// closes once the tree is gone.
func (t *Tree) Kill() { t.sys.kill() }

// Exited is closed once the program and everything it started are gone
// and reaped. The program's own exit ends its tree too: nothing it started
// outlives it.
func (t *Tree) Exited() <-chan struct{} { return t.done }

// Status says how the program ended ("exit status 3", "signal: killed");
// it is valid once Exited is closed, "" before.
func (t *Tree) Status() string {
	select {
	case <-t.done:
		return t.status
	default:
		return ""
	}
}

// ExitCode is the program's exit code once Exited is closed: -1 while
// it runs or when it did not exit on its own (killed by a signal).
func (t *Tree) ExitCode() int {
	select {
	case <-t.done:
	default:
		return -1
	}
	return t.code
}

// Pid is the program's process id as the owner sees it, for
// diagnostics (on Linux, in a PID namespace, the program itself sees 1).
func (t *Tree) Pid() int { return t.pid }
