package main

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// TestMCPExitPathsLeaveNoProcess: `rx-bridge mcp` ended by its client
// (stdin closed), SIGTERM or SIGINT exits 0 and leaves no sidecar.
func TestMCPExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		sig  syscall.Signal // 0: close stdin
	}{{name: "stdin EOF"}, {name: "SIGTERM", sig: syscall.SIGTERM}, {name: "SIGINT", sig: syscall.SIGINT}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), testenv.UntilDeadline(t, testenv.Scale(time.Minute)))
			defer cancel()
			home := t.TempDir()
			examplestest.Install(t, home, "hello")
			cs, tr := mcpSession(t, ctx, home, nil)
			// The first generation is built before the client is
			// answered: hello runs.
			if len(sidecarsOf(home)) == 0 {
				t.Fatal("no sidecar of hello runs once the server answered initialize")
			}
			if tt.sig != 0 {
				if err := tr.Command.Process.Signal(tt.sig); err != nil {
					t.Fatal(err)
				}
				_ = cs.Wait()
			}
			if err := cs.Close(); err != nil && !strings.Contains(err.Error(), "signal") && !strings.Contains(err.Error(), "closed") {
				t.Logf("close: %v", err)
			}
			if st := tr.Command.ProcessState; st == nil || st.ExitCode() != 0 {
				t.Errorf("exit state %v, want 0", st)
			}
			waitNoSurvivors(t, home, true)
		})
	}
}

// TestMCPHTTPNeedsLoopback: --http refuses an address other machines
// could reach.
func TestMCPHTTPNeedsLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:8765", ":8765", "example.com:80", "8765"} {
		cmd := rxBridgeCommand("mcp", "--home", t.TempDir(), "--http", addr)
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || !strings.Contains(string(out), "loopback") {
			t.Errorf("--http %s: exit %d (%v), output %q", addr, code, err, out)
		}
	}
}
