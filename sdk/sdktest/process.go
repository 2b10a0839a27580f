package sdktest

import (
	"bytes"
	"errors"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// StartCmd starts cmd as a sidecar process — its stdin and stdout piped to
// the host, its stderr kept for Stderr — and connects a host to it. The
// process's exit arrives on Served (nil for exit status 0). Cleanup
// closes its stdin, waits for it to exit and kills it if it does not.
func StartCmd(t testing.TB, cmd *exec.Cmd, opts Options) (*Host, *Stderr) {
	t.Helper()
	// Plain pipes rather than cmd.StdoutPipe: Wait closes those as soon
	// as the process exits, losing its last frames if the host has not
	// read them yet.
	childIn, stdin := mustPipe(t)
	stdout, childOut := mustPipe(t)
	stderr := &Stderr{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, stderr
	err := cmd.Start()
	childIn.Close()
	childOut.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		t.Fatalf("sdktest: start %s: %v", cmd.Path, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-exited:
		case <-time.After(Deadline):
			_ = cmd.Process.Kill()
		}
	})
	served := make(chan error, 1)
	go func() {
		err := <-exited
		var exit *exec.ExitError
		if errors.As(err, &exit) && exit.ExitCode() == 0 {
			err = nil
		}
		served <- err
		exited <- err // for Cleanup
	}()
	return connect(t, stdout, stdin, served, opts), stderr
}

// Stderr collects a process's diagnostics.
type Stderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Stderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what the process wrote so far.
func (s *Stderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
