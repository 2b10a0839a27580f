package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// pluginProcs maps every live (not zombie) process started for a plugin of
// home to its helper role ("" for one without).
func pluginProcs(home string) map[int]string {
	out := map[int]string{}
	for _, pid := range sidecarsOf(home) {
		n, err := strconv.Atoi(pid)
		if err != nil {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", pid, "environ"))
		role := ""
		for kv := range strings.SplitSeq(string(env), "\x00") {
			if v, ok := strings.CutPrefix(kv, sidecarEnv+"="); ok {
				role = v
			}
		}
		out[n] = role
	}
	return out
}

// waitForkyTree waits until every process of the forky tree of home runs,
// and makes sure none outlives the test, whatever it finds.
func waitForkyTree(t *testing.T, home string) {
	t.Helper()
	t.Cleanup(func() {
		for pid := range pluginProcs(home) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	deadline := time.Now().Add(scaled(30 * time.Second))
	for {
		var roles []string
		for _, r := range pluginProcs(home) {
			roles = append(roles, r)
		}
		missing := slices.DeleteFunc(slices.Clone(forkyTree), func(r string) bool { return slices.Contains(roles, r) })
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("forky tree incomplete: running %v, missing %v", roles, missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitNoSurvivors fails unless every process started for a plugin of home
// has ended. The bound only keeps a regression from hanging the test.
// With atExit, the bridge has exited by its own choice, which it does
// only after its kills ran and the trees were reaped: nothing may be
// left even now.
func waitNoSurvivors(t *testing.T, home string, atExit bool) {
	t.Helper()
	if left := pluginProcs(home); atExit && len(left) > 0 {
		t.Errorf("processes still running when the bridge exited (pid: role): %v", left)
	}
	deadline := time.Now().Add(scaled(20 * time.Second))
	for {
		left := pluginProcs(home)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the bridge exited (pid: role): %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeExitPathsLeaveNoProcess: however serve ends, no process of a
// sidecar's or a package MCP server's tree survives it: not a grandchild
// that ignores SIGTERM, not one that left the process group with setsid,
// not its child.
func TestServeExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	signal := func(sig syscall.Signal) func(*testing.T, *lspclient.Client) {
		return func(t *testing.T, c *lspclient.Client) {
			if err := c.Signal(sig); err != nil {
				t.Fatal(err)
			}
			c.ExitCode(scaled(30 * time.Second))
		}
	}
	tests := []struct {
		name string
		end  func(*testing.T, *lspclient.Client)
	}{
		{name: "shutdown and exit", end: shutdownExit},
		{name: "stdin EOF", end: func(t *testing.T, c *lspclient.Client) {
			if err := c.CloseInput(); err != nil {
				t.Fatal(err)
			}
			if code := c.ExitCode(scaled(30 * time.Second)); code != 1 {
				t.Errorf("status %d after stdin closed, want 1", code)
			}
		}},
		{name: "SIGTERM", end: signal(syscall.SIGTERM)},
		{name: "SIGINT", end: signal(syscall.SIGINT)},
		{name: "SIGKILL", end: signal(syscall.SIGKILL)},
		// An editor quitting closes stderr first (issue 29): the bridge
		// still ends by its own choice, not by SIGPIPE.
		{name: "stderr closed, then stdin EOF", end: func(t *testing.T, c *lspclient.Client) {
			if err := c.CloseInput(); err != nil {
				t.Fatal(err)
			}
			if code := c.ExitCode(scaled(30 * time.Second)); code != 1 {
				t.Errorf("status %d after stderr and stdin closed, want 1", code)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t, "forky")
			var errRead *os.File
			if strings.HasPrefix(tt.name, "stderr closed") {
				var err error
				if errRead, e.stderr, err = os.Pipe(); err != nil {
					t.Fatal(err)
				}
			}
			c := e.start()
			initialized(t, c, clientCaps(fullRx(), nil))
			waitForkyTree(t, e.home)
			if errRead != nil {
				_ = e.stderr.Close()
				_ = errRead.Close()
			}
			tt.end(t, c)
			waitNoSurvivors(t, e.home, tt.name != "SIGKILL")
		})
	}
}

// TestChatExitPathsLeaveNoProcess: the same for `rx-bridge chat`, killed
// or ended by the end of its input.
func TestChatExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	srv := chatServer(t)
	for _, name := range []string{"SIGKILL", "stdin EOF", "stdout and stderr closed, then stdin EOF"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			getenv, ws := chatEnv(t, srv, "ask")
			home := getenv("RX_BRIDGE_HOME")
			installForky(t, home)
			cmd := rxBridgeCommand("chat", "--workspace", ws)
			cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
			var stderr strings.Builder
			cmd.Stderr = &lockedWriter{b: &stderr}
			var reads []*os.File
			if name != "SIGKILL" && name != "stdin EOF" {
				// A terminal or editor that went away: both output pipes
				// are closed before the input ends (issue 29).
				outR, outW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				errR, errW, err := os.Pipe()
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdout, cmd.Stderr = outW, errW
				reads = []*os.File{outR, errR}
				t.Cleanup(func() { _ = outW.Close(); _ = errW.Close() })
			}
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if cmd.Stdout != nil {
				_ = cmd.Stdout.(*os.File).Close()
				_ = cmd.Stderr.(*os.File).Close()
			}
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				if t.Failed() {
					t.Logf("rx-bridge chat stderr:\n%s", stderr.String())
				}
			})
			waitForkyTree(t, home)
			for _, r := range reads {
				_ = r.Close()
			}
			if name == "SIGKILL" {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			} else {
				_ = in.Close()
			}
			err = cmd.Wait()
			if name != "SIGKILL" && cmd.ProcessState.ExitCode() != 0 {
				t.Errorf("chat ended %v, want status 0", err)
			}
			waitNoSurvivors(t, home, name != "SIGKILL")
		})
	}
}
