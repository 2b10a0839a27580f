package engine

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// fakeUI is the editor side: it answers forms with answer and records
// what it was shown.
type fakeUI struct {
	answer func(p editorui.Prompt) editorui.Answer

	mu       sync.Mutex
	prompts  []editorui.Prompt
	statuses []editorui.Status
}

func (f *fakeUI) Supports(k editorui.Kind) bool {
	return k == editorui.KindForm || k == editorui.KindStatus
}
func (f *fakeUI) ask(p editorui.Prompt) (editorui.Answer, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, p)
	f.mu.Unlock()
	return f.answer(p), nil
}
func (f *fakeUI) Select(_ context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return f.ask(p)
}
func (f *fakeUI) MultiSelect(_ context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return f.ask(p)
}
func (f *fakeUI) Input(_ context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return f.ask(p)
}
func (f *fakeUI) Confirm(_ context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return f.ask(p)
}
func (f *fakeUI) Form(_ context.Context, p editorui.Prompt) (editorui.Answer, error) { return f.ask(p) }
func (f *fakeUI) Notify(context.Context, editorui.Notification) error                { return nil }
func (f *fakeUI) Status(_ context.Context, s editorui.Status) error {
	f.mu.Lock()
	f.statuses = append(f.statuses, s)
	f.mu.Unlock()
	return nil
}
func (f *fakeUI) Card(context.Context, editorui.Card) error     { return nil }
func (f *fakeUI) ShowForm(context.Context, editorui.Form) error { return nil }
func (f *fakeUI) ShowMessage(context.Context, editorui.Severity, string) error {
	return nil
}
func (f *fakeUI) ShowMessageRequest(context.Context, editorui.Severity, string, []string) (int, bool, error) {
	return 0, false, nil
}
func (f *fakeUI) LogMessage(context.Context, editorui.Severity, string) error { return nil }

type fakeEditor struct{}

func (fakeEditor) Document(context.Context, string) (string, bool, error) { return "", false, nil }
func (fakeEditor) ApplyEdit(context.Context, tools.FileEdit) error        { return nil }
func (fakeEditor) RequestPermission(context.Context, agent.PermissionRequest) (agent.PermissionOutcome, error) {
	return agent.PermissionCancelled, nil
}

// serverEverything is the installed @modelcontextprotocol/server-everything
// (mcphost/testdata/setup.sh), or a skip.
func serverEverything(t *testing.T) (node, entry string) {
	t.Helper()
	dir := os.Getenv("RX_MCP_CACHE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "rx-bridge-mcp")
	}
	entry = filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("server-everything is not installed (%s): run `make mcp-setup`", entry)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	return node, entry
}

// The MCP client through the engine: server-everything's elicitation
// reaches the editor as one form of the server's fields and the answer
// goes back mapped to the schema's values, a dismissal cancels; its
// roots/list is answered with the workspace; a long operation's progress
// is shown as the server's status item.
func TestMCPClientThroughTheEditor(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	home, ws := t.TempDir(), t.TempDir()
	cfg := "[mcp_servers.everything]\ncommand = " + strconv.Quote(node) + "\nargs = [" + strconv.Quote(entry) + `, "stdio"]` + "\n"
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ui := &fakeUI{}
	var dismiss sync.Mutex
	dismissed := false
	ui.answer = func(p editorui.Prompt) editorui.Answer {
		dismiss.Lock()
		defer dismiss.Unlock()
		if dismissed {
			return editorui.Answer{Cancelled: true}
		}
		return editorui.Answer{Values: map[string]json.RawMessage{
			"name": json.RawMessage(`"Ada"`), "integer": json.RawMessage(`"7"`), "titledSingleSelectEnum": json.RawMessage(`"Wonder Woman"`),
		}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	notices := make(chan mcphost.Notice, 256)
	e, err := Open(ctx, Options{Home: home, Workspace: ws, SessionID: "s-1", UI: ui, Editor: fakeEditor{}, MCPNotice: func(n mcphost.Notice) {
		select {
		case notices <- n:
		default:
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	snap, release := e.Runtime.Acquire()
	defer release()
	h := snap.Contents.MCP
	if _, err := h.Connect(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(names(h.Tools()), "mcp__everything__trigger-elicitation-request") || !slices.Contains(names(h.Tools()), "mcp__everything__get-roots-list") {
		// server-everything adds them after the handshake and says so.
		select {
		case <-ctx.Done():
			t.Fatalf("tools %v", names(h.Tools()))
		case <-notices:
		}
	}
	r, err := h.Call(ctx, "mcp__everything__trigger-elicitation-request", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "- Name: Ada") || !strings.Contains(r.Text, "- Favorite Integer: 7") || !strings.Contains(r.Text, `"titledSingleSelectEnum": "hero-3"`) {
		t.Errorf("accepted elicitation = %+v, %v", r, err)
	}
	ui.mu.Lock()
	if len(ui.prompts) != 1 || ui.prompts[0].Plugin != "everything" || !strings.Contains(ui.prompts[0].Message, "Please provide inputs") || len(ui.prompts[0].Fields) < 10 {
		t.Errorf("prompts %+v", ui.prompts)
	}
	ui.mu.Unlock()
	dismiss.Lock()
	dismissed = true
	dismiss.Unlock()
	if r, err := h.Call(ctx, "mcp__everything__trigger-elicitation-request", json.RawMessage(`{}`)); err != nil || !strings.Contains(r.Text, "cancelled") {
		t.Errorf("dismissed elicitation = %+v, %v", r, err)
	}

	r, err = h.Call(ctx, "mcp__everything__get-roots-list", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "URI: "+(&url.URL{Scheme: "file", Path: filepath.ToSlash(ws)}).String()) {
		t.Errorf("get-roots-list = %+v, %v", r, err)
	}

	if r, err := h.Call(ctx, "mcp__everything__trigger-long-running-operation", json.RawMessage(`{"duration":0.2,"steps":2}`)); err != nil || r.IsError {
		t.Fatalf("long operation = %+v, %v", r, err)
	}
	ui.mu.Lock()
	defer ui.mu.Unlock()
	var details []string
	for _, s := range ui.statuses {
		if s.Plugin == "everything" && s.SurfaceID == "mcp-progress" {
			details = append(details, s.Detail)
		}
	}
	// The last report may race the result and be dropped (mcphost never
	// shows one after done).
	if !slices.Equal(details, []string{"1/2", "2/2", "done"}) && !slices.Equal(details, []string{"1/2", "done"}) {
		t.Errorf("progress shown %q", details)
	}
}

func names(ts []mcphost.Tool) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}
