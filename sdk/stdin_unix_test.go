//go:build unix

package sdk_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/sdk"
)

// TestMainSIGTERMWithStdinOpen: a sidecar on sdk.Main reads its stdin with
// blocking reads, which closing cannot interrupt. On SIGTERM it must still
// exit cleanly (status 0) and promptly while the host keeps the stdin pipe
// open: Serve does not wait for the read in progress. Before, it gave up
// waiting only after closeGrace, with a warning on stderr.
func TestMainSIGTERMWithStdinOpen(t *testing.T) {
	if os.Getenv("SDK_STDIO_CHILD") == "main" {
		sdk.Main(minimalPlugin(), sdk.Options{})
		os.Exit(0)
	}
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestMainSIGTERMWithStdinOpen$")
	cmd.Env = append(os.Environ(), "SDK_STDIO_CHILD=main")
	childIn, stdin, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	childIn.Close()
	childOut.Close()
	defer stdin.Close() // held open until the child has exited
	defer stdout.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	// Any answer proves Serve runs, so SIGTERM is handled, not fatal.
	if _, err := stdin.WriteString(`{"jsonrpc":"2.0","id":1,"method":"extension/intercept","params":{}}` + "\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("no answer: %v; stderr: %s", err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the sidecar did not exit on SIGTERM while its stdin stayed open")
	}
	if s := stderr.String(); s != "" {
		t.Errorf("stderr: %s", s)
	}
}
