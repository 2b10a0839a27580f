package exthost

import (
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/proctree"
)

// The environment variables every sidecar receives (SPEC §2).
const (
	EnvPluginRoot    = "REASONIX_PLUGIN_ROOT"
	EnvPluginName    = "REASONIX_PLUGIN_NAME"
	EnvPluginVersion = "REASONIX_PLUGIN_VERSION"
)

// reapWait bounds how long a killed process tree may take to be reaped.
const reapWait = 5 * time.Second

// spawnSpec is everything needed to start one sidecar.
type spawnSpec struct {
	Plugin  string // installed plugin id
	Root    string // installed plugin root
	Version string // installed version, else the manifest's
	Path    string // the program, checked by resolveCommand
	Args    []string
	Env     map[string]string
}

// resolveCommand is the launch check, the same one plugin doctor runs
// (manifest.Runtime.CheckCommand): ${REASONIX_PLUGIN_ROOT} expanded, an
// absolute path to an existing executable file that stays inside the root
// and is not a shell, symlinks resolved first. It returns the program to
// run.
func resolveCommand(command, root string) (string, error) {
	return (&manifest.Runtime{Command: command}).CheckCommand(root)
}

// sidecarEnv is the host's unfiltered environment, then the manifest env,
// then the three identity variables, each replacing the one before it
// (without case on Windows, where Path is PATH), so a manifest can never
// override the identity.
func sidecarEnv(spec spawnSpec) []string {
	env := os.Environ()
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		env = manifest.SetEnv(env, k, spec.Env[k])
	}
	env = manifest.SetEnv(env, EnvPluginRoot, spec.Root)
	env = manifest.SetEnv(env, EnvPluginName, spec.Plugin)
	return manifest.SetEnv(env, EnvPluginVersion, spec.Version)
}

// process owns one sidecar for its whole life: its pipes, its stderr tail
// and, through proctree, every process it ever starts (on every OS: the
// whole tree ends on kill, on the sidecar's own exit and when the host
// dies, however it dies).
type process struct {
	tree   *proctree.Tree
	stdin  *os.File // host's write end of the child's stdin
	stdout *os.File // host's read end of the child's stdout
	tail   *tailBuffer
	exited <-chan struct{} // closed once the tree has ended and been reaped
}

// startProcess starts the sidecar's tree.
func startProcess(spec spawnSpec) (*process, error) {
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
	tree, err := proctree.Start(proctree.Command{Path: spec.Path, Args: spec.Args, Env: sidecarEnv(spec), Stdin: inR, Stdout: outW, Stderr: errW})
	// The child holds its own copies now; ours must go so EOF propagates.
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	p := &process{tree: tree, stdin: inW, stdout: outR, tail: newTailBuffer(extproto.StderrTailBytes), exited: tree.Exited()}
	go p.tail.drain(errR)
	return p, nil
}

// killTree ends the sidecar and everything it started. No SIGTERM is ever
// sent: a graceful stop is stdin EOF.
func (p *process) killTree() { p.tree.Kill() }

// waitExit waits up to d for the tree to be gone.
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
	if s := p.tree.Status(); s != "exit status 0" {
		return s
	}
	return "exited with status 0"
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}
