package mcphost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/internal/proctree"
	"github.com/rx-bridge/rx-bridge/internal/redact"
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

// TreeSpawner starts the server through proctree, which owns the server
// and everything it starts: Kill ends the whole tree, and nothing it
// started outlives the host, however the host ends.
func TreeSpawner(c Command) (Process, error) {
	t, err := proctree.Start(proctree.Command{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr})
	if err != nil {
		return nil, err
	}
	return treeProcess{t}, nil
}

type treeProcess struct{ t *proctree.Tree }

func (p treeProcess) Pid() int                { return p.t.Pid() }
func (p treeProcess) Exited() <-chan struct{} { return p.t.Exited() }
func (p treeProcess) Status() string          { return p.t.Status() }
func (p treeProcess) Kill() error             { p.t.Kill(); return nil }

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
