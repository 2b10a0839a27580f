package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// revealMCPRole is a stdio MCP server whose tools echo what it was
// configured with: reveal returns the value of the environment variable
// it is named and the server's arguments, reveal_error the same as a tool
// error.
const revealMCPRole = "reveal-mcp"

func init() {
	helperRoles[revealMCPRole] = func(string) {
		s := mcp.NewServer(&mcp.Implementation{Name: revealMCPRole, Version: "1"}, nil)
		reveal := func(isErr bool) mcp.ToolHandler {
			return func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Name string }
				_ = json.Unmarshal(r.Params.Arguments, &a)
				args := os.Args[1:]
				for i, arg := range args {
					if arg == "--" {
						args = args[i+1:]
						break
					}
				}
				text := "config " + a.Name + "=" + os.Getenv(a.Name) + " args " + strings.Join(args, " ")
				return &mcp.CallToolResult{IsError: isErr, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			}
		}
		schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)
		s.AddTool(&mcp.Tool{Name: "reveal", Description: "echoes an env value", InputSchema: schema}, reveal(false))
		s.AddTool(&mcp.Tool{Name: "reveal_error", Description: "fails with an env value", InputSchema: schema}, reveal(true))
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
	}
}

// containsAny reports whether s holds one of the secrets.
func containsAny(s string, secrets ...string) bool {
	for _, v := range secrets {
		if strings.Contains(s, v) {
			return true
		}
	}
	return false
}

// filesHolding are the files under dirs that hold one of the secrets.
func filesHolding(t *testing.T, secrets []string, dirs ...string) (leaks []string, transcripts int) {
	t.Helper()
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if strings.HasSuffix(path, ".jsonl") {
				transcripts++
			}
			if b, _ := os.ReadFile(path); containsAny(string(b), secrets...) {
				leaks = append(leaks, path)
			}
			return nil
		})
	}
	return leaks, transcripts
}

// TestServeMCPSecretsNeverShown is issue 26 defect 9 through serve and a
// real LSP client: a config.toml MCP server's env value and secret
// argument, which the server echoes in a tool result and in a tool
// error, reach the editor in no message and are stored in no file (the
// session's transcript), while the rest of the result is shown.
func TestServeMCPSecretsNeverShown(t *testing.T) {
	t.Parallel()
	const (
		envSecret = "planted-serve-env-Tn62xR"
		argSecret = "planted-serve-arg-Yc09kB"
	)
	e := newServeEnv(t, "echo-provider")
	cfg := map[string]any{"command": os.Args[0], "args": []string{"-test.run=^TestServeSidecarHelper$", "--", "--api-key", argSecret},
		"env": map[string]string{sidecarEnv: revealMCPRole, "PROBE_SETTING": envSecret}}
	b, _ := json.Marshal(cfg)
	// JSON is TOML's inline table syntax once the keys are bare.
	inline := strings.NewReplacer(`"command":`, "command = ", `"args":`, "args = ", `"env":`, "env = ", `"`+sidecarEnv+`":`, sidecarEnv+" = ", `"PROBE_SETTING":`, "PROBE_SETTING = ").Replace(string(b))
	e.writeConfig("model = \"" + echoSmall + "\"\ntool_approval = \"yolo\"\n\n[mcp_servers]\nprobe = " + inline + "\n")
	c := e.start()
	var mu sync.Mutex
	var seen []lspclient.Message
	c.Watch(func(m lspclient.Message) {
		mu.Lock()
		seen = append(seen, m)
		mu.Unlock()
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)
	for _, tool := range []string{"reveal", "reveal_error"} {
		r := prompt(t, c, sid, `call mcp__probe__`+tool+` {"name":"PROBE_SETTING"}`)
		// Until the server is connected, the model is offered no tool of it.
		for strings.HasPrefix(r.Text, "Cannot call") {
			select {
			case <-ctxT(t).Done():
				t.Fatalf("the MCP server never connected: %q", r.Text)
			case <-time.After(50 * time.Millisecond):
			}
			r = prompt(t, c, sid, `call mcp__probe__`+tool+` {"name":"PROBE_SETTING"}`)
		}
		if containsAny(r.Text, envSecret, argSecret) || !strings.Contains(r.Text, "PROBE_SETTING=[redacted]") {
			t.Errorf("%s turn answered %q", tool, r.Text)
		}
	}
	shutdownExit(t, c)
	mu.Lock()
	defer mu.Unlock()
	var outputs int
	for _, m := range seen {
		if containsAny(string(m.Params), envSecret, argSecret) {
			t.Errorf("%s shows a secret: %s", m.Method, m.Params)
		}
		if m.Method == "rx/session/update" && strings.Contains(string(m.Params), "config PROBE_SETTING=[redacted] args --api-key [redacted]") {
			outputs++
		}
	}
	if outputs < 2 {
		t.Errorf("%d tool call updates show the redacted results, want 2", outputs)
	}
	leaks, transcripts := filesHolding(t, []string{envSecret, argSecret}, e.home, e.ws)
	// config.toml is where the user wrote them.
	leaks = slices.DeleteFunc(leaks, func(p string) bool { return filepath.Base(p) == "config.toml" })
	if len(leaks) > 0 {
		t.Errorf("files store a secret: %q", leaks)
	}
	if transcripts == 0 {
		t.Error("no transcript was written")
	}
}

// TestCompleteProviderHeaderNeverShown: a config.toml provider's header
// value, echoed by the server in its error body, is masked in what
// rx-bridge complete prints.
func TestCompleteProviderHeaderNeverShown(t *testing.T) {
	const secret = "acme-widgets-tenant-blue"
	srv := sseServer(t, http.StatusBadRequest, "", answerEvents...)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"unknown tenant ` + r.Header.Get("X-Custom") + `"}}`))
	})
	home := writeHome(t, srv.URL)
	cfg, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg = bytes.Replace(cfg, []byte("max_attempts = 1\n"), []byte("max_attempts = 1\nheaders = { X-Custom = \""+secret+"\" }\n"), 1)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"complete", "--model", "local/coder", "hi"}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d; stderr %s", code, stderr.String())
	}
	if out := stdout.String() + stderr.String(); strings.Contains(out, secret) || !strings.Contains(out, "unknown tenant [redacted]") {
		t.Errorf("complete printed:\n%s", out)
	}
}

// TestPluginNamedInItsOwnEnvIsNamed is issue 26 defect 10: a plugin
// whose runtime env holds its own name (as every helper plugin's does:
// sidecarEnv=<name>) and whose runtime fails to start is named, not
// masked, in the warning rx-bridge acp prints on stderr, and the warning
// is printed once.
func TestPluginNamedInItsOwnEnvIsNamed(t *testing.T) {
	t.Parallel()
	const name = "selfnamed-plugin" // no helper role of that name: it exits at once
	e := newServeEnv(t, "echo-provider")
	e.installHelper(name, nil)
	cmd := rxBridgeCommand("acp", "--home", e.home, "--workspace", e.ws)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1}})
	if _, err := in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(out).ReadBytes('\n'); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	_ = in.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("rx-bridge acp: %v\n%s", err, logs.String())
	}
	stderr := logs.String()
	want := name + ": optional extension runtime failed to start"
	if n := strings.Count(stderr, "optional extension runtime failed to start"); n != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr has the warning %d times, want once as %q:\n%s", n, want, stderr)
	}
}
