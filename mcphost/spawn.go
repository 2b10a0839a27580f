package mcphost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/redact"
)

// Command is what a Spawner starts: Path is absolute, Args excludes the
// program, Env is the whole environment. The three files are the child's
// ends of pipes the host created; the Spawner hands them to the child and
// must not close them (the host does).
type Command struct {
	Path   string
	Args   []string
	Env    []string
	Dir    string
	Stdin  *os.File
	Stdout *os.File
	Stderr *os.File
}

// Process is a started stdio server as a Spawner returns it.
type Process interface {
	Pid() int
	// Kill ends the process; a process-tree owner (proctree) ends every
	// process it started too.
	Kill() error
	// Exited is closed once the process has exited and been reaped.
	Exited() <-chan struct{}
	// Status says how it exited ("exit status 1", "signal: killed"); ""
	// while it runs.
	Status() string
}

// Spawner starts a stdio server process. It is the one place this package
// starts a process, so the owner of process trees can be put in it.
type Spawner func(Command) (Process, error)

// ExecSpawner starts the process with os/exec. It owns only the process
// itself, not what that process starts.
func ExecSpawner(c Command) (Process, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &execProcess{cmd: cmd, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.status = "exited"
		if err != nil {
			p.status = err.Error()
		} else if cmd.ProcessState != nil {
			p.status = cmd.ProcessState.String()
		}
		p.mu.Unlock()
		close(p.exited)
	}()
	return p, nil
}

type execProcess struct {
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	status string
}

func (p *execProcess) Pid() int                { return p.cmd.Process.Pid }
func (p *execProcess) Exited() <-chan struct{} { return p.exited }

func (p *execProcess) Kill() error {
	select {
	case <-p.exited:
		return nil
	default:
	}
	return p.cmd.Process.Kill()
}

func (p *execProcess) Status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// lookPath resolves a stdio command as the reference does: a command with
// a separator is a path (a relative one against dir, else the working
// directory); a bare name is searched on the server's own PATH (absolute
// entries only; PATHEXT on Windows, through exec.LookPath).
func lookPath(name, cmd string, env []string, dir string) (string, error) {
	if strings.ContainsAny(cmd, `/\`) {
		if filepath.IsAbs(cmd) {
			return cmd, nil
		}
		base := dir
		if base == "" {
			wd, err := os.Getwd()
			if err != nil {
				return "", err
			}
			base = wd
		}
		return filepath.Join(base, cmd), nil
	}
	path := envValue(env, "PATH")
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if p, err := exec.LookPath(filepath.Join(d, cmd)); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("stdio plugin %q: command %q not found on PATH; GUI launches and non-interactive sessions may not inherit your shell PATH. Use an absolute command path or set PATH in the MCP server env. PATH=%q", name, cmd, path)
}

func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		k, val, _ := strings.Cut(kv, "=")
		if k == key || runtime.GOOS == "windows" && strings.EqualFold(k, key) {
			v = val
		}
	}
	return v
}

// tail keeps the last max bytes written to it: a server's stderr, shown
// (redacted) when it fails.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// String is the tail, trimmed and redacted.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return redact.String(strings.TrimSpace(strings.ToValidUTF8(string(t.buf), "\uFFFD")))
}
