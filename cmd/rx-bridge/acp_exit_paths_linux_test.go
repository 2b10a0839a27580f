package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestACPExitPathsLeaveNoProcess: however `rx-bridge acp` ends, no
// process survives it: not the forky package's sidecar and MCP trees,
// not the stdio MCP server the client passed for its session, nor
// what they left behind with setsid.
func TestACPExitPathsLeaveNoProcess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		sig  syscall.Signal // 0: close stdin
		code int            // want, unless SIGKILL
	}{
		{name: "stdin EOF", code: 0},
		{name: "SIGTERM", sig: syscall.SIGTERM, code: 0},
		{name: "SIGINT", sig: syscall.SIGINT, code: 0},
		{name: "SIGKILL", sig: syscall.SIGKILL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home, ws := t.TempDir(), t.TempDir()
			installForky(t, home)
			// A model for session/new; no turn runs, nothing calls it.
			cfg := "model = \"local/m\"\n[[providers.openai]]\nname = \"local\"\nbase_url = \"http://127.0.0.1:9/v1\"\n[[providers.openai.models]]\nid = \"m\"\n"
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := rxBridgeCommand("acp", "--workspace", ws)
			cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
			var stderr strings.Builder
			cmd.Stderr = &lockedWriter{b: &stderr}
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
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
					t.Logf("rx-bridge acp stderr:\n%s", stderr.String())
				}
			})
			frames := bufio.NewScanner(out)
			frames.Buffer(make([]byte, 1<<20), 16<<20)
			call := func(id int, method string, params any) json.RawMessage {
				t.Helper()
				b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
				if _, err := fmt.Fprintf(in, "%s\n", b); err != nil {
					t.Fatal(err)
				}
				for frames.Scan() {
					var m struct {
						ID     *int            `json:"id"`
						Method string          `json:"method"`
						Result json.RawMessage `json:"result"`
						Error  json.RawMessage `json:"error"`
					}
					if json.Unmarshal(frames.Bytes(), &m) != nil || m.Method != "" || m.ID == nil || *m.ID != id {
						continue
					}
					if m.Error != nil {
						t.Fatalf("%s: %s", method, m.Error)
					}
					return m.Result
				}
				t.Fatalf("%s: no answer (%v)", method, frames.Err())
				return nil
			}
			call(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
			call(2, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{map[string]any{
				"name":    "client",
				"command": os.Args[0],
				"args":    []string{"-test.run=^TestServeSidecarHelper$"},
				// The plugin root marks the process as this test's
				// (pluginProcs); the role makes it the client's server.
				"env": []any{
					map[string]string{"name": sidecarEnv, "value": acpClientMCPRole},
					map[string]string{"name": "REASONIX_PLUGIN_ROOT", "value": home},
				},
			}}})
			// The rest of the output is not read again: drain it so a
			// notification never blocks the bridge.
			go func() { _, _ = io.Copy(io.Discard, out) }()
			waitForkyTree(t, home)
			waitRoles(t, home, acpClientMCPRole)
			if tt.sig == 0 {
				_ = in.Close()
			} else if err := cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if tt.sig != syscall.SIGKILL && cmd.ProcessState.ExitCode() != tt.code {
					t.Errorf("exit status %d (%v), want %d", cmd.ProcessState.ExitCode(), err, tt.code)
				}
			case <-time.After(60 * time.Second):
				t.Fatal("rx-bridge acp did not exit")
			}
			waitNoSurvivors(t, home, tt.sig != syscall.SIGKILL)
		})
	}
}

// waitRoles waits until a process of each role runs for home.
func waitRoles(t *testing.T, home string, roles ...string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		running := map[string]bool{}
		for _, r := range pluginProcs(home) {
			running[r] = true
		}
		var missing []string
		for _, r := range roles {
			if !running[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not running: %v", missing)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
