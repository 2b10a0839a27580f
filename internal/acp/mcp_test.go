package acp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

func TestMcpSpecsConversion(t *testing.T) {
	t.Parallel()
	got, err := mcpServers([]acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "fs", Command: "mcp-fs", Args: []string{"-v"}, Env: []acpsdk.EnvVariable{{Name: "K", Value: "v"}}}},
		{Http: &acpsdk.McpServerHttpInline{Name: "web", Type: "http", Url: "https://x.test/mcp", Headers: []acpsdk.HttpHeader{{Name: "Authorization", Value: "Bearer t"}}}},
		{Sse: &acpsdk.McpServerSseInline{Name: "old", Type: "sse", Url: "https://x.test/sse"}},
	}, "/w")
	if err != nil {
		t.Fatal(err)
	}
	want := []mcphost.Server{
		{Name: "fs", Type: "stdio", Command: "mcp-fs", Args: []string{"-v"}, Env: map[string]string{"K": "v"}, Dir: "/w", AutoStart: true, Source: mcphost.SourceUser},
		{Name: "web", Type: "http", URL: "https://x.test/mcp", Headers: map[string]string{"Authorization": "Bearer t"}, Dir: "/w", AutoStart: true, Source: mcphost.SourceUser},
		{Name: "old", Type: "sse", URL: "https://x.test/sse", Dir: "/w", AutoStart: true, Source: mcphost.SourceUser},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mcpServers =\n%+v\nwant\n%+v", got, want)
	}
}

func TestMcpSpecsRejectsUnsupportedTransport(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   acpsdk.McpServer
		want string
	}{
		{acpsdk.McpServer{Acp: &acpsdk.McpServerAcpInline{Name: "a", Type: "acp", Id: "1"}}, `MCP server "a" uses unsupported transport "acp"`},
		{acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{Command: "x"}}, "MCP server name is required"},
		{acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{Name: "s"}}, `MCP server "s" command is required`},
		{acpsdk.McpServer{Http: &acpsdk.McpServerHttpInline{Name: "h", Type: "http"}}, `MCP server "h" url is required`},
		{acpsdk.McpServer{Stdio: &acpsdk.McpServerStdio{Name: "s", Command: "x", Env: []acpsdk.EnvVariable{{Value: "v"}}}}, `MCP server "s": env[0].name is required`},
	} {
		_, err := mcpServers([]acpsdk.McpServer{tc.in}, "/w")
		if err == nil || err.Error() != tc.want {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
}

// testClient is an ACP client that allows every tool call once and
// records the session updates.
type testClient struct {
	mu      sync.Mutex
	updates []acpsdk.SessionUpdate
	asked   int // permission requests
}

func (c *testClient) RequestPermission(_ context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked++
	c.mu.Unlock()
	for _, o := range p.Options {
		if o.Kind == acpsdk.PermissionOptionKindAllowOnce {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(o.OptionId)}, nil
		}
	}
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}, nil
}

func (c *testClient) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	return nil
}

func (c *testClient) seen() []acpsdk.SessionUpdate {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acpsdk.SessionUpdate(nil), c.updates...)
}

var errNotOffered = errors.New("not offered")

func (c *testClient) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, errNotOffered
}
func (c *testClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, errNotOffered
}
func (c *testClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNotOffered
}
func (c *testClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNotOffered
}
func (c *testClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNotOffered
}
func (c *testClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNotOffered
}
func (c *testClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNotOffered
}

// acpEnv is Serve on a home with examples/echo-provider, driven over
// pipes by the Go SDK's client connection.
type acpEnv struct {
	home, ws string
	client   *testClient
	conn     *acpsdk.ClientSideConnection
}

func startACP(t *testing.T) *acpEnv {
	t.Helper()
	e := &acpEnv{home: t.TempDir(), ws: t.TempDir(), client: &testClient{}}
	examplestest.Install(t, e.home, "echo-provider")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, inR, outW, Options{Home: e.home, Workspace: e.ws, Model: "plugin/echo-provider/echo/small"})
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	e.conn = acpsdk.NewClientSideConnection(e.client, inW, outR)
	if _, err := e.conn.Initialize(ctxT(t), acpsdk.InitializeRequest{ProtocolVersion: ProtocolVersion}); err != nil {
		t.Fatal(err)
	}
	return e
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-5*time.Second))
	}
	t.Cleanup(cancel)
	return ctx
}

// TestSessionMCPServerToolCall: an MCP server the client passes in
// session/new runs for that session, the model calls its tool, and
// session/close stops it.
func TestSessionMCPServerToolCall(t *testing.T) {
	t.Parallel()
	e := startACP(t)
	marker := filepath.Join(t.TempDir(), "exited")
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{{Stdio: &acpsdk.McpServerStdio{
		Name: "probe", Command: os.Args[0], Env: []acpsdk.EnvVariable{{Name: mcpServerEnv, Value: marker}},
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(`call mcp__probe__shout {"text":"hello"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("stopReason %q", res.StopReason)
	}
	var out []string
	for _, u := range e.client.seen() {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			out = append(out, c.Content.Text.Text)
		}
	}
	text := strings.Join(out, "")
	if !strings.Contains(text, "HELLO!") {
		t.Errorf("the model did not get the MCP tool's result: %q", text)
	}
	if !strings.Contains(text, "[mcp] MCP server probe: ") {
		t.Errorf("the server's start notice did not reach the session: %q", text)
	}
	if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	// Close stopped the server: it saw its stdin end and exited.
	for ctx := ctxT(t); ; {
		if b, _ := os.ReadFile(marker); strings.Contains(string(b), "exit") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the session's MCP server still runs after session/close")
		case <-time.After(20 * time.Millisecond):
		}
	}
}
