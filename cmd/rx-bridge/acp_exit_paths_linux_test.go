package main

import (
	"io"
	"os"
	"path/filepath"
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
		name        string
		sig         syscall.Signal // 0: close stdin
		closeStderr bool           // close the read end of stderr first
		code        int            // want, unless SIGKILL
	}{
		{name: "stdin EOF", code: 0},
		{name: "SIGTERM", sig: syscall.SIGTERM, code: 0},
		{name: "SIGINT", sig: syscall.SIGINT, code: 0},
		{name: "SIGKILL", sig: syscall.SIGKILL},
		// An editor quitting closes the agent's stderr before its stdin
		// (issue 29): the next diagnostic must not kill it with SIGPIPE,
		// so the sessions end (SessionEnd hooks run) and nothing survives.
		{name: "stderr closed, then stdin EOF", closeStderr: true, code: 0},
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
			marker := installSessionEndMarker(t, home)
			var errRead, errWrite *os.File
			if tt.closeStderr {
				var err error
				if errRead, errWrite, err = os.Pipe(); err != nil {
					t.Fatal(err)
				}
				go func() { _, _ = io.Copy(io.Discard, errRead) }()
			}
			a := startACPStderr(t, home, ws, errWrite)
			if errWrite != nil {
				_ = errWrite.Close() // the child has its own copy
			}
			a.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{map[string]any{
				"name":    "client",
				"command": os.Args[0],
				"args":    []string{"-test.run=^TestServeSidecarHelper$"},
				// The plugin root marks the process as this test's
				// (pluginProcs); the role makes it the client's server.
				"env": []any{
					map[string]string{"name": sidecarEnv, "value": acpClientMCPRole},
					map[string]string{"name": "REASONIX_PLUGIN_ROOT", "value": home},
				},
			}}}, nil)
			waitForkyTree(t, home)
			waitRoles(t, home, acpClientMCPRole)
			if tt.closeStderr {
				_ = errRead.Close()
			}
			if tt.sig == 0 {
				_ = a.in.Close()
			} else if err := a.cmd.Process.Signal(tt.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-a.end:
				if code := a.cmd.ProcessState.ExitCode(); tt.sig != syscall.SIGKILL && code != tt.code {
					t.Errorf("exit status %d (%v), want %d", code, err, tt.code)
				}
			case <-time.After(scaled(60 * time.Second)):
				t.Fatal("rx-bridge acp did not exit")
			}
			waitNoSurvivors(t, home, tt.sig != syscall.SIGKILL)
			if _, err := os.Stat(marker); tt.sig != syscall.SIGKILL && err != nil {
				t.Errorf("the SessionEnd hook did not run: %v", err)
			}
		})
	}
}

// installSessionEndMarker installs a Claude Code package into home whose
// SessionEnd hook creates a file; it returns the file's path.
func installSessionEndMarker(t *testing.T, home string) string {
	t.Helper()
	src := t.TempDir()
	marker := filepath.Join(t.TempDir(), "session-ended")
	writeFiles(t, src, map[string]string{
		".claude-plugin/plugin.json": `{"name": "ender", "version": "0.0.1"}`,
		"hooks/hooks.json":           `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "touch '` + marker + `'"}]}]}}`,
	})
	installSource(t, home, src)
	return marker
}

// waitRoles waits until a process of each role runs for home.
func waitRoles(t *testing.T, home string, roles ...string) {
	t.Helper()
	deadline := time.Now().Add(scaled(30 * time.Second))
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
