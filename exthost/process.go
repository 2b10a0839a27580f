package exthost

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// The environment variables every sidecar receives (SPEC §2).
const (
	EnvPluginRoot    = "REASONIX_PLUGIN_ROOT"
	EnvPluginName    = "REASONIX_PLUGIN_NAME"
	EnvPluginVersion = "REASONIX_PLUGIN_VERSION"
)

// reapWait bounds how long a killed process tree may take to be reaped.
const reapWait = 5 * time.Second

// shells are the interpreters a runtime command may never be.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true,
	"cmd": true, "cmd.exe": true, "powershell": true, "powershell.exe": true,
	"pwsh": true, "pwsh.exe": true,
}

// spawnSpec is everything needed to start one sidecar.
type spawnSpec struct {
	Plugin  string // installed plugin id
	Root    string // installed plugin root
	Version string // installed version, else the manifest's
	Command string // runtime.command, not yet expanded
	Args    []string
	Env     map[string]string
}

// resolveCommand expands ${REASONIX_PLUGIN_ROOT} and applies the exec-form
// rules: an absolute path that is not a shell.
func resolveCommand(command, root string) (string, error) {
	c := strings.TrimSpace(command)
	if c == "" {
		return "", errors.New("runtime command is empty")
	}
	const tok = "${" + EnvPluginRoot + "}"
	if rest, ok := strings.CutPrefix(c, tok); ok {
		c = filepath.Join(root, filepath.FromSlash(rest))
	}
	if !filepath.IsAbs(c) {
		return "", fmt.Errorf("runtime command %q is not an absolute path after expansion", command)
	}
	if shells[strings.ToLower(filepath.Base(c))] {
		return "", fmt.Errorf("runtime command %q is a shell; runtimes run in exec form only", command)
	}
	return filepath.Clean(c), nil
}

// sidecarEnv is the host's unfiltered environment, then the manifest env,
// then the three identity variables; later entries win, so a manifest can
// never override the identity.
func sidecarEnv(spec spawnSpec) []string {
	env := os.Environ()
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = append(env, k+"="+spec.Env[k])
	}
	return append(env,
		EnvPluginRoot+"="+spec.Root,
		EnvPluginName+"="+spec.Plugin,
		EnvPluginVersion+"="+spec.Version,
	)
}

// process owns one sidecar OS process for its whole life: its pipes, its
// stderr tail and its process group.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // host's write end of the child's stdin
	stdout *os.File // host's read end of the child's stdout
	tail   *tailBuffer

	exited  chan struct{} // closed once the process has been reaped
	waitErr error

	killOnce sync.Once
}

// startProcess spawns the sidecar as the leader of its own process group.
// Pdeathsig makes the kernel kill it should the bridge itself be killed
// before it could shut the sidecar down.
func startProcess(spec spawnSpec) (*process, error) {
	path, err := resolveCommand(spec.Command, spec.Root)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}
	cmd := exec.Command(path, spec.Args...)
	cmd.Args[0] = path
	cmd.Env = sidecarEnv(spec)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := startLocked(cmd); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	// The child holds its own copies now; ours must go so EOF propagates.
	closeAll(inR, outW, errW)
	p := &process{cmd: cmd, stdin: inW, stdout: outR, tail: newTailBuffer(protocol.StderrTailBytes), exited: make(chan struct{})}
	go p.tail.drain(errR)
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// killTree sends SIGKILL to the sidecar's whole process group (its
// children included) and, should the group be gone already, to the child.
// No SIGTERM is ever sent: a graceful stop is stdin EOF.
func (p *process) killTree() {
	p.killOnce.Do(func() {
		pid := p.cmd.Process.Pid
		if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
			_ = p.cmd.Process.Kill()
		}
	})
}

// waitExit waits up to d for the process to be reaped.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exitStatus describes how the process ended, for crash messages.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return "still running"
	}
	if p.waitErr == nil {
		return "exited with status 0"
	}
	return p.waitErr.Error()
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
