package tools

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/proctree"
)

// lookProgram resolves run_command's program as os/exec would run it: a
// bare name on PATH, a path with a separator relative to dir. The result
// is absolute: proctree starts only absolute paths.
func lookProgram(name, dir string) (string, error) {
	if filepath.Base(name) == name {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(p) {
			return "", &exec.Error{Name: name, Err: exec.ErrDot}
		}
		return p, nil
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	// Checks that it is executable; on Windows, adds the extension.
	return exec.LookPath(name)
}

// runOwned runs path with args in dir, its stdout and stderr both written
// to out, and returns how it ended (proctree's exit code, -1 for a
// signal, and status text). The process and everything it starts — a
// child that ignores SIGTERM, one that left the session — are owned by
// proctree like a sidecar's tree: they end when the program exits, when
// ctx ends (it returns once they are gone), and when this process ends,
// however it ends. err is set only when the program did not start.
func runOwned(ctx context.Context, path string, args []string, dir string, out io.Writer) (code int, status string, err error) {
	null, err := os.Open(os.DevNull)
	if err != nil {
		return 0, "", err
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return 0, "", err
	}
	tree, err := proctree.Start(proctree.Command{Path: path, Args: args, Env: os.Environ(), Dir: dir, Stdin: null, Stdout: w, Stderr: w})
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		return 0, "", err
	}
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		_, _ = io.Copy(out, r)
	}()
	select {
	case <-tree.Exited():
	case <-ctx.Done():
		tree.Kill()
		<-tree.Exited()
	}
	// The tree is gone and reaped, so the pipe's write ends are closed;
	// the bound is for one that escaped it all the same.
	grace := time.NewTimer(killGrace)
	select {
	case <-copied:
	case <-grace.C:
	}
	grace.Stop()
	_ = r.Close()
	<-copied
	return tree.ExitCode(), tree.Status(), nil
}
