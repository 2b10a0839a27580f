package mcphost

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// The test binary doubles as the Go-SDK MCP servers of the crash, hang and
// lazy-start tests: with MCPHOST_TEST_SERVER set it runs that server on
// stdin/stdout instead of the tests (real process, real pipes).
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPHOST_TEST_SERVER"); strings.HasPrefix(mode, "flood-") {
		runFloodServer(mode)
		return
	}
	if mode := os.Getenv("MCPHOST_TEST_SERVER"); strings.HasPrefix(mode, "strict-") {
		runStrictServer(strings.TrimPrefix(mode, "strict-"))
		return
	}
	if mode := os.Getenv("MCPHOST_TEST_SERVER"); mode != "" {
		runTestServer(mode)
		return
	}
	// Every test closes its hosts: nothing of theirs may still run. The
	// threads proctree forks PID namespaces from live as long as the
	// process, by design (their parent-death signal needs them).
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("github.com/rx-bridge/rx-bridge/internal/proctree.spawnLoop"))
}

// runTestServer modes:
//
//	ok          echo, big, crash, hang tools and a greet prompt; exits on stdin EOF
//	wedged      like ok, but keeps running after stdin EOF
//	silent      reads nothing, answers nothing, ignores stdin EOF
//	failstart   writes to stderr and exits 2 before the handshake
//
// and flood-answer and flood-mute (runFloodServer, flood_test.go),
// strict-<version> (runStrictServer, version_test.go).
func runTestServer(mode string) {
	if f := os.Getenv("MCPHOST_TEST_STARTS"); f != "" {
		fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(fh, testenv.Pid())
			fh.Close()
		}
	}
	switch mode {
	case "silent":
		select {}
	case "failstart":
		fmt.Fprintln(os.Stderr, "boom: cannot open the database; api_key=sk-abcdefghijklmnopqrstuvwxyz0123456789")
		os.Exit(2)
	}
	s := testServer()
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	if mode == "wedged" {
		select {}
	}
}

func testServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcphost-test", Version: "1"}, nil)
	text := func(t string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: t}}}
	}
	obj := json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"},"n":{"type":"integer"}}}`)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes message", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ Message string }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			return text("echo: " + a.Message), nil
		})
	s.AddTool(&mcp.Tool{Name: "big", Description: "n bytes", InputSchema: obj},
		func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var a struct{ N int }
			_ = json.Unmarshal(r.Params.Arguments, &a)
			return text("<" + strings.Repeat("x", a.N) + ">"), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "a tool error", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("it went wrong")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "dies mid-call", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "panic: the server fell over")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "hang", Description: "never answers", InputSchema: obj},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			select {} // ignores the cancellation too
		})
	s.AddTool(&mcp.Tool{Name: "odd name!", Description: "a name to normalise", InputSchema: obj},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return text("odd"), nil })
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "greets", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}, {Name: "how"}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Greet %s (%s).", r.Params.Arguments["who"], r.Params.Arguments["how"])}}}}, nil
		})
	return s
}

// goServer is a stdio Server running this test binary in the given mode.
func goServer(t *testing.T, name, mode string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: name, Command: exe, Env: map[string]string{"MCPHOST_TEST_SERVER": mode}, AutoStart: true, Source: SourceUser}
}

// notices collects a host's notices.
type notices struct {
	mu   sync.Mutex
	list []Notice
	ch   chan Notice
}

func newNotices() *notices { return &notices{ch: make(chan Notice, 1024)} }

func (n *notices) add(x Notice) {
	n.mu.Lock()
	n.list = append(n.list, x)
	n.mu.Unlock()
	n.ch <- x
}

// waitFor returns the first notice (past or future) whose text contains
// want; the test's own deadline bounds the wait.
func (n *notices) waitFor(t *testing.T, want string) Notice {
	t.Helper()
	for {
		x := <-n.ch
		if strings.Contains(x.Text, want) {
			return x
		}
	}
}

// procs records the processes a host spawns.
type procs struct {
	mu   sync.Mutex
	list []Process
}

func (p *procs) spawn(c Command) (Process, error) {
	pr, err := TreeSpawner(c)
	if err == nil {
		p.mu.Lock()
		p.list = append(p.list, pr)
		p.mu.Unlock()
	}
	return pr, err
}

func (p *procs) all() []Process {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Process(nil), p.list...)
}

// assertReaped fails unless every recorded process has exited.
func (p *procs) assertReaped(t *testing.T) {
	t.Helper()
	for _, pr := range p.all() {
		select {
		case <-pr.Exited():
		default:
			t.Errorf("process %d still runs after Close", pr.Pid())
		}
	}
}

func newHost(t *testing.T, servers []Server, opts Options) (*Host, *notices, *procs) {
	t.Helper()
	n, p := newNotices(), &procs{}
	opts.OnNotice = n.add
	if opts.Spawn == nil {
		opts.Spawn = p.spawn
	}
	h := New(servers, opts)
	t.Cleanup(func() { h.Close() })
	return h, n, p
}

func toolNames(ts []Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-5*time.Second))
	}
	t.Cleanup(cancel)
	return ctx
}

// serverEverything is the installed @modelcontextprotocol/server-everything
// entry point, or a skip saying how to install it.
func serverEverything(t *testing.T) (node, entry string) {
	t.Helper()
	dir := os.Getenv("RX_MCP_CACHE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "rx-bridge-mcp")
	}
	entry = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed (%s): run `make mcp-setup` (mcphost/testdata/setup.sh)", entry)
	}
	node, err := lookPath("node", "node", os.Environ(), "")
	if err != nil {
		t.Skipf("node is not on PATH: %v", err)
	}
	return node, entry
}

// freePort is a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
