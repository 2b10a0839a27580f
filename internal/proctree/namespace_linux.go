package proctree

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// On Linux, with RX_BRIDGE_PROCTREE=namespace (modeEnv; the supervisor is
// the default), a program is started, where the kernel allows it, as the init
// (PID 1) of a PID namespace of its own, inside a user namespace that maps
// the caller's uid and gid to themselves — no supervisor process at all.
// The kernel keeps the guarantees: when a namespace's init ends, every
// other process in the namespace is SIGKILLed, and the init's wait returns
// only once they are all gone; nothing leaves a PID namespace, setsid(2)
// and double forks included. The program gets SIGKILL as its parent-death
// signal, so the owner's end, SIGKILL included, ends the namespace; Kill
// SIGKILLs the program. Where the kernel refuses the namespaces (a
// sandbox, a container, Ubuntu's AppArmor restriction of unprivileged
// user namespaces), the first start falls back to the supervisor
// (supervise_unix.go), and every later one uses it straight away.

// modeEnv chooses how a program's tree is owned on Linux: "namespace"
// is the namespace where the kernel allows it, falling back to the
// supervisor where it does not; unset or anything else is the supervisor.
// The namespace is opt-in: it costs no process and no memory, but its
// programs see themselves as PID 1 (shell scripts that name temporary
// files after $$ collide across namespaces), setuid helpers do not
// elevate, and it has a microsecond window at start in which a host
// SIGKILLed would leave the program behind (docs/ARCHITECTURE.md).
const modeEnv = "RX_BRIDGE_PROCTREE"

// mode is a way of owning a tree.
type mode int

const (
	modeAuto mode = iota
	modeNamespace
	modeSupervisor
)

func (m mode) String() string {
	switch m {
	case modeNamespace:
		return "namespace"
	case modeSupervisor:
		return "supervisor"
	}
	return "auto"
}

// modeFromEnv is the mode the owner's environment asks for.
func modeFromEnv() mode {
	if os.Getenv(modeEnv) == "namespace" {
		return modeAuto
	}
	return modeSupervisor
}

func start(c Command) (*Tree, error) { return startIn(c, modeFromEnv()) }

// nsRefused is set once the kernel refused the namespaces and the
// supervisor worked instead: from then on every start uses the supervisor.
var nsRefused struct {
	sync.Mutex
	refused bool
}

// startIn starts c owned the way m says.
func startIn(c Command, m mode) (*Tree, error) {
	switch m {
	case modeSupervisor:
		return startSupervised(c)
	case modeNamespace:
		return startNamespace(c)
	}
	nsRefused.Lock()
	refused := nsRefused.refused
	nsRefused.Unlock()
	if refused {
		return startSupervised(c)
	}
	t, err := startNamespace(c)
	if err == nil || !namespaceRefused(err) {
		return t, err
	}
	t, err = startSupervised(c)
	if err == nil {
		// Cached only now: if the supervisor fails too, the error was the
		// program's own, not the namespaces'.
		nsRefused.Lock()
		nsRefused.refused = true
		nsRefused.Unlock()
	}
	return t, err
}

// namespaceRefused: err is what clone(2) or the uid/gid mapping returns
// where unprivileged user or PID namespaces are not allowed, or too many
// exist.
func namespaceRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EACCES, syscall.EUSERS, syscall.ENOSYS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// startNamespace starts c as the init of its own PID namespace and
// returns once it runs (exec succeeded) or the error that kept it from
// starting.
func startNamespace(c Command) (*Tree, error) {
	uid, gid := os.Getuid(), os.Getgid()
	cmd := &exec.Cmd{
		Path:   c.Path,
		Args:   append([]string{c.Path}, c.Args...),
		Env:    c.Env,
		Dir:    c.Dir,
		Stdin:  c.Stdin,
		Stdout: c.Stdout,
		Stderr: c.Stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Cloneflags:                 syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID,
			UidMappings:                []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings:                []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			GidMappingsEnableSetgroups: false,
			// Its own group, so a terminal's Ctrl-C never reaches it.
			Setpgid:   true,
			Pdeathsig: syscall.SIGKILL,
		},
	}
	if err := spawn(cmd); err != nil {
		return nil, err
	}
	t := &Tree{sys: sysTree{cmd: cmd}, pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() {
		// The init is reaped only after the kernel has killed and reaped
		// every other process of its namespace.
		err := cmd.Wait()
		t.code = -1
		switch {
		case cmd.ProcessState != nil:
			t.code = cmd.ProcessState.ExitCode()
			t.status = cmd.ProcessState.String()
		case err != nil:
			t.status = err.Error()
		}
		close(t.done)
	}()
	return t, nil
}

// spawners are the goroutines that fork every namespace's init, each on
// an OS thread of its own that it locked and never gives back: a
// parent-death signal fires when the thread that forked the child ends,
// not the process, and these threads end only with the process. A few of
// them, so that starts at once (a generation of sidecars) do not queue
// behind each other's uid and gid mapping.
var spawners struct {
	once sync.Once
	reqs chan spawnReq
}

// spawnThreads is how many threads the spawners keep.
const spawnThreads = 4

type spawnReq struct {
	cmd *exec.Cmd
	err chan<- error
}

// spawnLoop is a spawner (goleak users ignore it by this name: it lives
// as long as the process).
func spawnLoop(reqs <-chan spawnReq) {
	runtime.LockOSThread() // never unlocked: this goroutine never returns
	for r := range reqs {
		r.err <- r.cmd.Start()
	}
}

// spawn starts cmd on a spawner's thread.
func spawn(cmd *exec.Cmd) error {
	spawners.once.Do(func() {
		spawners.reqs = make(chan spawnReq)
		for range spawnThreads {
			go spawnLoop(spawners.reqs)
		}
	})
	errc := make(chan error, 1)
	spawners.reqs <- spawnReq{cmd, errc}
	return <-errc
}
