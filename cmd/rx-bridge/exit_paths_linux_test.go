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
	deadline := time.Now().Add(30 * time.Second)
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
	deadline := time.Now().Add(20 * time.Second)
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
			c.ExitCode(30 * time.Second)
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
			if code := c.ExitCode(30 * time.Second); code != 1 {
				t.Errorf("status %d after stdin closed, want 1", code)
			}
		}},
		{name: "SIGTERM", end: signal(syscall.SIGTERM)},
		{name: "SIGINT", end: signal(syscall.SIGINT)},
		{name: "SIGKILL", end: signal(syscall.SIGKILL)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t, "forky")
			c := e.start()
			initialized(t, c, clientCaps(fullRx(), nil))
			waitForkyTree(t, e.home)
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
	for _, name := range []string{"SIGKILL", "stdin EOF"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			getenv, ws := chatEnv(t, srv, "ask")
			home := getenv("RX_BRIDGE_HOME")
			installForky(t, home)
			cmd := rxBridgeCommand("chat", "--workspace", ws)
			cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
			var stderr strings.Builder
			cmd.Stderr = &lockedWriter{b: &stderr}
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				if t.Failed() {
					t.Logf("rx-bridge chat stderr:\n%s", stderr.String())
				}
			})
			waitForkyTree(t, home)
			if name == "SIGKILL" {
				_ = cmd.Process.Signal(syscall.SIGKILL)
			} else {
				_ = in.Close()
			}
			_ = cmd.Wait()
			waitNoSurvivors(t, home, name != "SIGKILL")
		})
	}
}
