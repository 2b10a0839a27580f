package acp

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// TestMCPSecretsNeverShown is issue 26 defect 9: an MCP server's
// configured env value and secret-looking argument, echoed by the server
// in a tool result and in a tool error, appear in no session update the
// client gets and in no file the session stored (its transcript), while
// the rest of the result does.
func TestMCPSecretsNeverShown(t *testing.T) {
	t.Parallel()
	const (
		envSecret = "planted-acp-env-Qx81vT"
		argSecret = "planted-acp-arg-Lm42pW"
	)
	e := startACP(t)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{
		Name: "probe", Command: os.Args[0], Args: []string{"--api-key", argSecret},
		Env: []acpsdk.EnvVariable{{Name: mcpServerEnv, Value: filepath.Join(t.TempDir(), "exited")}, {Name: "PROBE_SETTING", Value: envSecret}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"reveal", "reveal_error"} {
		if _, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{
			acpsdk.TextBlock(`call mcp__probe__` + tool + ` {"name":"PROBE_SETTING"}`)}}); err != nil {
			t.Fatal(err)
		}
	}
	var outputs int
	for _, u := range e.client.seen() {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); strings.Contains(s, envSecret) || strings.Contains(s, argSecret) {
			t.Errorf("a session update shows a secret: %s", s)
		}
		if c := u.ToolCallUpdate; c != nil && c.Status != nil && (*c.Status == acpsdk.ToolCallStatusCompleted || *c.Status == acpsdk.ToolCallStatusFailed) {
			b, _ := json.Marshal(c.Content)
			if !strings.Contains(string(b), "config PROBE_SETTING=[redacted] args --api-key [redacted]") {
				t.Errorf("tool_call_update content = %s", b)
			}
			outputs++
		}
	}
	if outputs != 2 {
		t.Errorf("%d finished tool calls, want 2", outputs)
	}
	if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	var files int
	for _, dir := range []string{e.home, e.ws} {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(path)
			if strings.Contains(path, "sessions") || strings.HasSuffix(path, ".jsonl") {
				files++
			}
			if s := string(b); strings.Contains(s, envSecret) || strings.Contains(s, argSecret) {
				t.Errorf("%s stores a secret", path)
			}
			return nil
		})
	}
	if files == 0 {
		t.Error("no transcript was written")
	}
}
