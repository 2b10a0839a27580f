package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// The cross-front-end conformance test (issue 26): policy lives in the
// engine, so one table of scenarios runs through `rx-bridge serve` (LSP),
// `rx-bridge acp` and `rx-bridge chat`, each a real process driven over
// real pipes as its clients drive it, and every front end must ask the
// same questions, offer the same grants and leave the same files.

// question is one permission question as a front end showed it: the tool
// call's title and the session grant offered ("" when none).
type question struct{ Title, Grant string }

// Answers to a permission question.
const (
	answerOnce    = "once"
	answerSession = "session"
	answerDeny    = "deny"
)

// turnOut is how a turn ended and the agent's text in it.
type turnOut struct{ Stop, Text string }

// conformFE drives one session of one front end.
type conformFE interface {
	// prompt runs a turn and waits for its end.
	prompt(text string) turnOut
	// promptAsync starts a turn; its end arrives on the channel.
	promptAsync(text string) <-chan turnOut
	// reload reloads the plugins (errNoReload where the front end has no
	// such request).
	reload() error
	// asked lists the permission questions asked so far.
	asked() []question
	// undo undoes the session's last turn that changed files.
	undo(force bool) undoOut
	// setMode sets the session's mode (normal or plan).
	setMode(mode string)
}

// undoOut is what an undo did: workspace-relative paths restored and
// skipped (with the reason's first words), or the error's text.
type undoOut struct {
	Restored, Skipped []string
	Err               string
}

// conformUndo is the result shape serve and acp share.
type conformUndo struct {
	Restored []string
	Skipped  []struct{ Path, Reason string }
}

func (r conformUndo) out(ws string) undoOut {
	var u undoOut
	for _, p := range r.Restored {
		u.Restored = append(u.Restored, relTo(ws, p))
	}
	for _, k := range r.Skipped {
		u.Skipped = append(u.Skipped, relTo(ws, k.Path)+": "+k.Reason)
	}
	return u
}

func relTo(ws, p string) string {
	if r, err := filepath.Rel(ws, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// errNoReload: chat has no reload request, and reads its next line only
// once a turn has ended, so nothing can reach it during a turn.
var errNoReload = errors.New("chat has no reload request and reads no line during a turn")

// policy answers a permission question (it may block).
type policy func(question) string

// recorder keeps the questions a front end asked.
type recorder struct {
	mu sync.Mutex
	qs []question
}

func (r *recorder) add(q question) {
	r.mu.Lock()
	r.qs = append(r.qs, q)
	r.mu.Unlock()
}

func (r *recorder) asked() []question {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.qs)
}

// The front ends under test, each started on home and ws.
var conformFEs = []struct {
	name  string
	start func(t *testing.T, home, ws string, answer policy) conformFE
}{
	{"serve", startServeFE},
	{"acp", startACPFE},
	{"chat", startChatFE},
}

// --- serve -----------------------------------------------------------

type serveFE struct {
	recorder
	t   *testing.T
	c   *lspclient.Client
	ws  string
	sid string
}

func startServeFE(t *testing.T, home, ws string, answer policy) conformFE {
	e := &serveEnv{t: t, home: home, ws: ws}
	c := e.start()
	f := &serveFE{t: t, c: c, ws: ws}
	c.Handle("rx/session/requestPermission", func(_ context.Context, raw json.RawMessage) (any, error) {
		var r struct {
			ToolCall struct{ Title string }
			Options  []struct{ OptionID, Name, Kind string }
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, err
		}
		q := question{Title: r.ToolCall.Title}
		for _, o := range r.Options {
			if o.Kind == "allow_always" {
				q.Grant = o.Name
			}
		}
		f.add(q)
		id := map[string]string{answerOnce: "allow", answerSession: "allow_session", answerDeny: "deny"}[answer(q)]
		return map[string]any{"outcome": map[string]string{"outcome": "selected", "optionId": id}}, nil
	})
	// No workspace.applyEdit: the agent's edits go to disk, as in the
	// other two front ends here.
	initialized(t, c, clientCaps(fullRx(), nil))
	f.sid = newSession(t, c)
	t.Cleanup(func() { shutdownExit(t, c) })
	return f
}

func (f *serveFE) prompt(text string) turnOut { return <-f.promptAsync(text) }

func (f *serveFE) promptAsync(text string) <-chan turnOut {
	out := make(chan turnOut, 1)
	go func() {
		var r promptResult
		if err := f.c.Call(ctxT(f.t), "rx/session/prompt", map[string]any{"sessionId": f.sid, "prompt": text}, &r); err != nil {
			out <- turnOut{Stop: "error: " + err.Error()}
			return
		}
		out <- turnOut{Stop: r.StopReason, Text: r.Text}
	}()
	return out
}

func (f *serveFE) undo(force bool) undoOut {
	var r conformUndo
	if err := f.c.Call(ctxT(f.t), "rx/session/undoTurn", map[string]any{"sessionId": f.sid, "force": force}, &r); err != nil {
		return undoOut{Err: err.Error()}
	}
	return r.out(f.ws)
}

func (f *serveFE) setMode(mode string) {
	if err := f.c.Call(ctxT(f.t), "rx/session/setMode", map[string]any{"sessionId": f.sid, "mode": mode}, nil); err != nil {
		f.t.Fatalf("rx/session/setMode %s: %v", mode, err)
	}
}

func (f *serveFE) reload() error {
	return f.c.Call(ctxT(f.t), "workspace/executeCommand", map[string]any{"command": "rx.reload"}, nil)
}

// --- acp -------------------------------------------------------------

type acpFE struct {
	recorder
	p   *acpProc
	ws  string
	sid string
}

func startACPFE(t *testing.T, home, ws string, answer policy) conformFE {
	f := &acpFE{ws: ws}
	p := startACP(t, home, ws)
	p.onPermission(func(raw json.RawMessage) string {
		var r struct {
			ToolCall struct {
				Title string `json:"title"`
			} `json:"toolCall"`
			Options []struct {
				OptionID string `json:"optionId"`
				Name     string `json:"name"`
				Kind     string `json:"kind"`
			} `json:"options"`
		}
		_ = json.Unmarshal(raw, &r)
		q := question{Title: r.ToolCall.Title}
		for _, o := range r.Options {
			if o.Kind == "allow_always" {
				q.Grant = o.Name
			}
		}
		f.add(q)
		return map[string]string{answerOnce: "allow_once", answerSession: "allow_always", answerDeny: "reject_once"}[answer(q)]
	})
	f.p = p
	var created struct{ SessionID string }
	p.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &created)
	f.sid = created.SessionID
	t.Cleanup(p.stop)
	return f
}

func (f *acpFE) prompt(text string) turnOut { return <-f.promptAsync(text) }

func (f *acpFE) promptAsync(text string) <-chan turnOut {
	out := make(chan turnOut, 1)
	from := f.p.updateCount()
	go func() {
		var done struct{ StopReason string }
		if err := f.p.try("session/prompt", map[string]any{"sessionId": f.sid, "prompt": []any{map[string]string{"type": "text", "text": text}}}, &done); err != nil {
			out <- turnOut{Stop: "error: " + err.Error()}
			return
		}
		out <- turnOut{Stop: done.StopReason, Text: f.p.agentText(f.sid, from)}
	}()
	return out
}

func (f *acpFE) undo(force bool) undoOut {
	var r conformUndo
	if err := f.p.try("_reasonix.io/session/undoTurn", map[string]any{"sessionId": f.sid, "force": force}, &r); err != nil {
		return undoOut{Err: err.Error()}
	}
	return r.out(f.ws)
}

func (f *acpFE) setMode(mode string) {
	if err := f.p.try("session/set_mode", map[string]any{"sessionId": f.sid, "modeId": mode}, nil); err != nil {
		f.p.t.Fatalf("session/set_mode %s: %v", mode, err)
	}
}

func (f *acpFE) reload() error {
	return f.p.try("_reasonix.io/session/reloadExtensions", map[string]any{"sessionId": f.sid}, nil)
}

// --- chat ------------------------------------------------------------

// chatFE is `rx-bridge chat` in interactive mode on pipes: prompts and
// answers are lines on its stdin, its output lines on stdout, questions
// on stderr.
type chatFE struct {
	recorder
	t     *testing.T
	in    io.WriteCloser
	wmu   sync.Mutex
	mu    sync.Mutex
	lines []string // stdout
	more  chan struct{}
	turn  int
	errMu sync.Mutex
	errs  bytes.Buffer // stderr
}

// chatQuestion is a permission question as chat asks it on stderr.
var chatQuestion = regexp.MustCompile(`(?s)Allow (.*?)\? \S+ [^\n]*?(?:\n  y = allow once, a = (.*?), N = deny \[y/a/N\] |\[y/N\] )$`)

func startChatFE(t *testing.T, home, ws string, answer policy) conformFE {
	cmd := rxBridgeCommand("chat", "--workspace", ws)
	cmd.Env = append(cmd.Env, "RX_BRIDGE_HOME="+home)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f := &chatFE{t: t, in: in, more: make(chan struct{}, 1)}
	errMu, errText := &f.errMu, &f.errs
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			f.mu.Lock()
			f.lines = append(f.lines, sc.Text())
			f.mu.Unlock()
			select {
			case f.more <- struct{}{}:
			default:
			}
		}
		close(done)
	}()
	go func() {
		buf := make([]byte, 4096)
		seen := 0 // stderr bytes already matched as questions
		for {
			n, err := stderr.Read(buf)
			errMu.Lock()
			errText.Write(buf[:n])
			pending := errText.String()[seen:]
			errMu.Unlock()
			select {
			case f.more <- struct{}{}:
			default:
			}
			if m := chatQuestion.FindStringSubmatch(pending); m != nil {
				seen += len(pending)
				q := question{Title: m[1], Grant: m[2]}
				f.add(q)
				go func() {
					line := map[string]string{answerOnce: "y", answerSession: "a", answerDeny: "n"}[answer(q)]
					f.write(line)
				}()
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		f.write("/exit")
		_ = in.Close()
		<-done
		_ = cmd.Wait()
		if t.Failed() {
			errMu.Lock()
			t.Logf("rx-bridge chat stderr:\n%s", errText.String())
			errMu.Unlock()
		}
	})
	return f
}

func (f *chatFE) write(line string) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_, _ = io.WriteString(f.in, line+"\n")
}

func (f *chatFE) prompt(text string) turnOut { return <-f.promptAsync(text) }

var chatTurnEnd = regexp.MustCompile(`^\[turn (\d+): (\S+)\]$`)

func (f *chatFE) promptAsync(text string) <-chan turnOut {
	f.mu.Lock()
	from := len(f.lines)
	f.turn++
	want := fmt.Sprint(f.turn)
	f.mu.Unlock()
	f.write(text)
	out := make(chan turnOut, 1)
	go func() {
		ctx := ctxT(f.t)
		for {
			f.mu.Lock()
			for i := from; i < len(f.lines); i++ {
				if m := chatTurnEnd.FindStringSubmatch(f.lines[i]); m != nil && m[1] == want {
					text := strings.Join(f.lines[from:i], "\n")
					f.mu.Unlock()
					out <- turnOut{Stop: m[2], Text: text}
					return
				}
			}
			f.mu.Unlock()
			select {
			case <-f.more:
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
				out <- turnOut{Stop: "error: no end of turn " + want}
				return
			}
		}
	}()
	return out
}

func (f *chatFE) reload() error { return errNoReload }

func (f *chatFE) setMode(mode string) { f.write("/mode " + mode) }

// undo types /undo (or /undo force) and then /model, whose "model: …"
// line on stderr marks that every line of the undo was written.
func (f *chatFE) undo(force bool) undoOut {
	f.errMu.Lock()
	from := f.errs.Len()
	f.errMu.Unlock()
	line := "/undo"
	if force {
		line += " force"
	}
	f.write(line)
	f.write("/model")
	ctx := ctxT(f.t)
	for {
		f.errMu.Lock()
		text := f.errs.String()[from:]
		f.errMu.Unlock()
		if i := strings.Index(text, "model: "); i >= 0 {
			var u undoOut
			for _, l := range strings.Split(text[:i], "\n") {
				switch {
				case strings.HasPrefix(l, "  restored "):
					u.Restored = append(u.Restored, strings.TrimPrefix(l, "  restored "))
				case strings.HasPrefix(l, "  skipped "):
					u.Skipped = append(u.Skipped, strings.TrimPrefix(l, "  skipped "))
				case strings.HasPrefix(l, "rx-bridge chat: "):
					u.Err = strings.TrimPrefix(l, "rx-bridge chat: ")
				}
			}
			return u
		}
		select {
		case <-f.more:
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return undoOut{Err: "no end of /undo"}
		}
	}
}

// --- the scenarios ---------------------------------------------------

// step is one prompt of a scenario: the answer to every question it
// asks, the questions it must ask (exactly), and what the turn's text
// must and must not hold.
type step struct {
	mode    string // set the session's mode before the prompt
	prompt  string
	answer  string
	asks    []question
	has     []string
	hasNot  []string
	stop    string // default end_turn
	waitFor string // repeat the prompt until its text holds this (an MCP server still starting)
}

type scenario struct {
	name     string
	approval string
	setup    func(t *testing.T, home, ws, outside string)
	mcp      bool // configure the conformance MCP server
	steps    []step
	files    map[string]string // ws-relative path → content at the end ("" absent)
}

const conformRole = "conform"

func init() {
	helperRoles[conformRole] = func(string) {
		p := &sdk.Plugin{Name: conformRole, Version: "0.0.1"}
		p.Action("args", "Tell the arguments", func(_ context.Context, a *extproto.UIActionParams) (string, error) {
			var kv []string
			for k, v := range a.Args {
				kv = append(kv, k+"="+v)
			}
			sort.Strings(kv)
			return "args: " + strings.Join(kv, " "), nil
		})
		p.Action("ask", "Ask which", func(ctx context.Context, a *extproto.UIActionParams) (string, error) {
			got, err := sdk.HostFrom(ctx).Select(ctx, "Which one?", []string{"left", "right"})
			if err != nil {
				return "", err
			}
			return "picked " + got, nil
		})
		sdk.Main(p, sdk.Options{})
	}
	helperRoles[conformMCPRole] = func(string) {
		s := mcp.NewServer(&mcp.Implementation{Name: conformMCPRole, Version: "1"}, nil)
		schema := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)
		s.AddTool(&mcp.Tool{Name: "peek", Description: "reads nothing", InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "peeked"}}}, nil
			})
		s.AddTool(&mcp.Tool{Name: "poke", Description: "may change something", InputSchema: schema},
			func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var a struct{ Path string }
				_ = json.Unmarshal(r.Params.Arguments, &a)
				// A tool without readOnlyHint: what it would change does
				// not matter to the approval, only that it may.
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "poked " + filepath.Base(a.Path)}}}, nil
			})
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
	}
}

const conformMCPRole = "conform-mcp"

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

const (
	grantEditA   = "Allow edits to a.txt for this session"
	grantEchoA   = "Allow `echo a` in the workspace root for this session"
	grantEchoB   = "Allow `echo b` in the workspace root for this session"
	grantMCPPoke = "Allow mcp__conf__poke for this session"
)

func editCall(path, content string) string {
	b, _ := json.Marshal(map[string]string{"path": path, "content": content})
	return "call apply_edit " + string(b)
}

func commandCall(argv ...string) string {
	b, _ := json.Marshal(map[string]any{"command": argv})
	return "call run_command " + string(b)
}

var conformScenarios = []scenario{
	{
		name: "ask asks about edits and commands, never reads or searches", approval: "ask",
		steps: []step{
			{prompt: `call read_file {"path": "notes.txt"}`, has: []string{"remember the milk"}},
			{prompt: `call list_files {}`, has: []string{"notes.txt"}},
			{prompt: editCall("a.txt", "one\n"), answer: answerOnce, asks: []question{{"Edit a.txt", grantEditA}}},
			{prompt: commandCall("echo", "a"), answer: answerDeny, asks: []question{{"Run echo a", grantEchoA}}, has: []string{"permission denied by user"}},
		},
		files: map[string]string{"a.txt": "one\n"},
	},
	{
		name: "auto runs edits unasked and asks about commands", approval: "auto",
		steps: []step{
			{prompt: editCall("a.txt", "one\n")},
			{prompt: commandCall("echo", "a"), answer: answerOnce, asks: []question{{"Run echo a", grantEchoA}}, has: []string{"exit status 0"}},
		},
		files: map[string]string{"a.txt": "one\n"},
	},
	{
		name: "yolo asks nothing", approval: "yolo",
		steps: []step{
			{prompt: editCall("a.txt", "one\n")},
			{prompt: commandCall("echo", "a"), has: []string{"exit status 0"}},
		},
		files: map[string]string{"a.txt": "one\n"},
	},
	{
		name: "a command grant is that exact command only", approval: "ask",
		steps: []step{
			{prompt: commandCall("echo", "a"), answer: answerSession, asks: []question{{"Run echo a", grantEchoA}}},
			{prompt: commandCall("echo", "a"), has: []string{"exit status 0"}},
			{prompt: commandCall("echo", "b"), answer: answerDeny, asks: []question{{"Run echo b", grantEchoB}}, has: []string{"permission denied by user"}},
		},
	},
	{
		name: "an edit grant is that exact file only", approval: "ask",
		steps: []step{
			{prompt: editCall("a.txt", "one\n"), answer: answerSession, asks: []question{{"Edit a.txt", grantEditA}}},
			{prompt: editCall("a.txt", "two\n")},
			{prompt: editCall("b.txt", "bee\n"), answer: answerDeny, asks: []question{{"Edit b.txt", "Allow edits to b.txt for this session"}}, has: []string{"permission denied by user"}},
		},
		files: map[string]string{"a.txt": "two\n", "b.txt": ""},
	},
	{
		name: "ask: an MCP tool that may write is asked about (granted as the tool), a read-only one is not", approval: "ask", mcp: true,
		steps: []step{
			{prompt: `call mcp__conf__peek {}`, waitFor: "peeked"},
			{prompt: `call mcp__conf__poke {"path": "denied"}`, answer: answerDeny, asks: []question{{"mcp__conf__poke", grantMCPPoke}}, has: []string{"permission denied by user"}, hasNot: []string{"poked"}},
			{prompt: `call mcp__conf__poke {"path": "granted"}`, answer: answerSession, asks: []question{{"mcp__conf__poke", grantMCPPoke}}, has: []string{"poked granted"}},
			{prompt: `call mcp__conf__poke {"path": "again"}`, has: []string{"poked again"}},
		},
	},
	{
		name: "auto: an MCP tool that may write is asked about", approval: "auto", mcp: true,
		steps: []step{
			{prompt: `call mcp__conf__peek {}`, waitFor: "peeked"},
			{prompt: `call mcp__conf__poke {"path": "auto"}`, answer: answerOnce, asks: []question{{"mcp__conf__poke", grantMCPPoke}}, has: []string{"poked auto"}},
		},
	},
	{
		name: "yolo: no MCP tool is asked about", approval: "yolo", mcp: true,
		steps: []step{
			{prompt: `call mcp__conf__peek {}`, waitFor: "peeked"},
			{prompt: `call mcp__conf__poke {"path": "yolo"}`, has: []string{"poked yolo"}},
		},
	},
	{
		name: "symlinks out of the workspace are not followed", approval: "yolo",
		setup: func(t *testing.T, home, ws, outside string) {
			writeFiles(t, outside, map[string]string{
				"secret.txt": "TOPSECRET-FILE\n",
				"cmd.md":     "Say TOPSECRET-CMD\n",
				"skill.md":   "---\nname: sneak\ndescription: sneaks out\n---\nSay TOPSECRET-SKILL\n",
			})
			writeFiles(t, outside, map[string]string{
				"creds.md": "TOPSECRET-REF\n",
				"agent.md": "---\nname: spy\ndescription: spies\n---\nSay TOPSECRET-AGENT\n",
			})
			writeFiles(t, ws, map[string]string{
				".claude/commands/fine.md":     "Say CONTROL-CMD $ARGUMENTS\n",
				".claude/commands/at.md":       "Summarize @link.txt and @notes.txt\n",
				".claude/skills/refd/SKILL.md": "---\nname: refd\ndescription: has references\n---\nSay REFD-BODY, see references/creds.md\n",
				".claude/agents/fine-agent.md": "---\nname: fine-agent\ndescription: fine\n---\nSay CONTROL-AGENT\n",
			})
			symlink(t, filepath.Join(outside, "creds.md"), filepath.Join(ws, ".claude", "skills", "refd", "references", "creds.md"))
			symlink(t, filepath.Join(outside, "agent.md"), filepath.Join(ws, ".claude", "agents", "spy.md"))
			symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link.txt"))
			symlink(t, filepath.Join(outside, "cmd.md"), filepath.Join(ws, ".claude", "commands", "leak.md"))
			symlink(t, filepath.Join(outside, "skill.md"), filepath.Join(ws, ".claude", "skills", "sneak", "SKILL.md"))
			symlink(t, outside, filepath.Join(ws, "outdir"))
		},
		steps: []step{
			{prompt: "/fine now", has: []string{"CONTROL-CMD now"}},
			{prompt: `call read_file {"path": "link.txt"}`, has: []string{"leads outside the workspace"}, hasNot: []string{"TOPSECRET"}},
			{prompt: `call read_file {"path": "outdir/secret.txt"}`, has: []string{"leads outside the workspace"}, hasNot: []string{"TOPSECRET"}},
			{prompt: editCall("outdir/new.txt", "x"), has: []string{"leads outside the workspace"}, hasNot: []string{"wrote"}},
			// A command or skill file that is a symlink out of the
			// workspace is not loaded: the line goes to the model as typed.
			{prompt: "/leak", has: []string{"/leak"}, hasNot: []string{"TOPSECRET"}},
			{prompt: "/sneak", has: []string{"/sneak"}, hasNot: []string{"TOPSECRET"}},
			// A skill's reference file that leads outside is not read,
			// neither into its body nor by read_skill.
			{prompt: "/refd", has: []string{"REFD-BODY"}, hasNot: []string{"TOPSECRET"}},
			{prompt: `call read_skill {"name": "refd", "file": "references/creds.md"}`, hasNot: []string{"TOPSECRET"}},
			// An agent file that is a symlink out is not loaded.
			// (The control agent runs: the line is not echoed back as
			// typed. The symlinked one is unknown: it is.)
			{prompt: "/agent:fine-agent go", hasNot: []string{"/agent:fine-agent go"}},
			{prompt: "/agent:spy go", has: []string{"/agent:spy go"}, hasNot: []string{"TOPSECRET"}},
			// @file in a command body reaches only workspace files.
			{prompt: "/at", has: []string{"remember the milk"}, hasNot: []string{"TOPSECRET"}},
		},
	},
	{
		name: "a commands folder that is a symlink out of the workspace is not read", approval: "yolo",
		setup: func(t *testing.T, home, ws, outside string) {
			writeFiles(t, outside, map[string]string{"cmds/leak2.md": "Say TOPSECRET-DIR\n"})
			symlink(t, filepath.Join(outside, "cmds"), filepath.Join(ws, ".claude", "commands"))
		},
		steps: []step{
			{prompt: "/leak2", has: []string{"/leak2"}, hasNot: []string{"TOPSECRET"}},
			{prompt: `call slash_command {"name": "leak2"}`, hasNot: []string{"TOPSECRET"}},
		},
	},
	{
		name: "plan mode refuses an edit, then an approved plan leaves it and the edit runs", approval: "yolo",
		steps: []step{
			{mode: "plan", prompt: editCall("a.txt", "one\n"), has: []string{"plan mode: apply_edit is refused"}},
			{prompt: `call exit_plan_mode {"plan": "write a.txt"}`, answer: answerDeny, asks: []question{{"Leave plan mode and carry out this plan?", ""}}, has: []string{"did not approve the plan"}},
			{prompt: editCall("a.txt", "two\n"), has: []string{"plan mode: apply_edit is refused"}},
			{prompt: `call exit_plan_mode {"plan": "write a.txt"}`, answer: answerOnce, asks: []question{{"Leave plan mode and carry out this plan?", ""}}, has: []string{"approved the plan"}},
			{prompt: editCall("a.txt", "three\n")},
		},
		files: map[string]string{"a.txt": "three\n"},
	},
	{
		name: "a typed action runs with its arguments and its message is the turn's text", approval: "ask",
		steps: []step{
			{prompt: "/conform:args name=Ada extra", has: []string{"args: arg1=extra name=Ada"}},
		},
	},
}

// TestFrontEndConformance runs every scenario through serve, acp and
// chat.
func TestFrontEndConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge per scenario and front end")
	}
	t.Parallel()
	for _, sc := range conformScenarios {
		for _, fe := range conformFEs {
			t.Run(sc.name+"/"+fe.name, func(t *testing.T) {
				t.Parallel()
				home, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
				conformHome(t, home, ws, sc.approval, sc.mcp)
				if sc.setup != nil {
					sc.setup(t, home, ws, outside)
				}
				var mu sync.Mutex
				cur := answerDeny
				f := fe.start(t, home, ws, func(question) string {
					mu.Lock()
					defer mu.Unlock()
					return cur
				})
				for _, st := range sc.steps {
					mu.Lock()
					cur = st.answer
					if cur == "" {
						cur = answerDeny
					}
					mu.Unlock()
					if st.mode != "" {
						f.setMode(st.mode)
					}
					before := len(f.asked())
					out := f.prompt(st.prompt)
					if os.Getenv("CONFORM_DEBUG") != "" { // what each turn said, for whoever adds a scenario
						t.Logf("%s -> %+v", st.prompt, out)
					}
					for st.waitFor != "" && !strings.Contains(out.Text, st.waitFor) {
						select {
						case <-ctxT(t).Done():
							t.Fatalf("%s: never %q: %+v", st.prompt, st.waitFor, out)
						case <-time.After(100 * time.Millisecond):
						}
						out = f.prompt(st.prompt)
					}
					want := st.stop
					if want == "" {
						want = "end_turn"
					}
					if out.Stop != want {
						t.Errorf("%s: turn ended %q, want %q (text %q)", st.prompt, out.Stop, want, out.Text)
					}
					if got := f.asked()[before:]; !slices.Equal(got, st.asks) {
						t.Errorf("%s: asked %q, want %q", st.prompt, got, st.asks)
					}
					for _, s := range st.has {
						if !strings.Contains(out.Text, s) {
							t.Errorf("%s: text lacks %q:\n%s", st.prompt, s, out.Text)
						}
					}
					for _, s := range st.hasNot {
						if strings.Contains(out.Text, s) {
							t.Errorf("%s: text holds %q:\n%s", st.prompt, s, out.Text)
						}
					}
				}
				for name, want := range sc.files {
					got, err := os.ReadFile(filepath.Join(ws, name))
					if want == "" && !errors.Is(err, os.ErrNotExist) || want != "" && string(got) != want {
						t.Errorf("%s: %q, %v; want %q", name, got, err, want)
					}
				}
				if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
					t.Error("an edit through a symlinked folder wrote outside the workspace")
				}
			})
		}
	}
}

// conformHome installs echo-provider and the conform plugin into home,
// writes its config (the approval mode, the conformance MCP server) and
// the workspace's notes.txt.
func conformHome(t *testing.T, home, ws, approval string, withMCP bool) {
	t.Helper()
	e := &serveEnv{t: t, home: home, ws: ws}
	for _, p := range []string{"echo-provider"} {
		examplestest.Install(t, home, p)
	}
	installHelperPlugin(t, home, conformRole, map[string]any{"capabilities": []string{"ui"}})
	cfg := fmt.Sprintf("model = %q\ntool_approval = %q\n", echoSmall, approval)
	if withMCP {
		cfg += fmt.Sprintf("\n[mcp_servers.conf]\ncommand = %q\nargs = [\"-test.run=^TestServeSidecarHelper$\"]\nenv = { %s = %q }\n", os.Args[0], sidecarEnv, conformMCPRole)
	}
	e.writeConfig(cfg)
	writeFiles(t, ws, map[string]string{"notes.txt": "remember the milk\n"})
}

// TestFrontEndConformanceReloadDuringATurn: a reload asked for while a
// turn waits on a permission question lets the turn finish (the engine
// waits for it), in every front end that has a reload request.
func TestFrontEndConformanceReloadDuringATurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge per front end")
	}
	t.Parallel()
	for _, fe := range conformFEs {
		t.Run(fe.name, func(t *testing.T) {
			t.Parallel()
			home, ws := t.TempDir(), t.TempDir()
			conformHome(t, home, ws, "ask", false)
			asked, release := make(chan struct{}, 1), make(chan struct{})
			f := fe.start(t, home, ws, func(question) string {
				asked <- struct{}{}
				<-release
				return answerOnce
			})
			turn := f.promptAsync(editCall("a.txt", "held\n"))
			<-asked
			reloaded := make(chan error, 1)
			go func() { reloaded <- f.reload() }()
			close(release)
			if out := <-turn; out.Stop != "end_turn" {
				t.Errorf("the held turn ended %+v", out)
			}
			if err := <-reloaded; errors.Is(err, errNoReload) {
				t.Skip(err)
			} else if err != nil {
				t.Errorf("reload: %v", err)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "held\n" {
				t.Errorf("a.txt = %q", got)
			}
			if out := f.prompt("after the reload"); out.Stop != "end_turn" || !strings.Contains(out.Text, "after the reload") {
				t.Errorf("a turn after the reload: %+v", out)
			}
		})
	}
}

// TestFrontEndConformanceUndo: undo is the engine's: every front end
// undoes the newest turn that changed files, newest first, leaves a file
// the user changed since alone unless forced, and says when there is
// nothing left to undo.
func TestFrontEndConformanceUndo(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge per front end")
	}
	t.Parallel()
	for _, fe := range conformFEs {
		t.Run(fe.name, func(t *testing.T) {
			t.Parallel()
			home, ws := t.TempDir(), t.TempDir()
			conformHome(t, home, ws, "yolo", false)
			writeFiles(t, ws, map[string]string{"a.txt": "zero\n"})
			f := fe.start(t, home, ws, func(question) string { return answerDeny })
			read := func(name string) string {
				b, err := os.ReadFile(filepath.Join(ws, name))
				if err != nil {
					return "<none>"
				}
				return string(b)
			}
			for _, p := range []string{editCall("a.txt", "one\n"), editCall("b.txt", "bee\n"), "no edits in this turn"} {
				if out := f.prompt(p); out.Stop != "end_turn" {
					t.Fatalf("%s: %+v", p, out)
				}
			}
			if u := f.undo(false); u.Err != "" || !slices.Equal(u.Restored, []string{"b.txt"}) || len(u.Skipped) != 0 || read("b.txt") != "<none>" {
				t.Errorf("first undo: %+v, b.txt %q; want b.txt (created) removed", u, read("b.txt"))
			}
			writeFiles(t, ws, map[string]string{"a.txt": "by hand\n"})
			if u := f.undo(false); u.Err != "" || len(u.Restored) != 0 || len(u.Skipped) != 1 || !strings.HasPrefix(u.Skipped[0], "a.txt: changed since the turn") || read("a.txt") != "by hand\n" {
				t.Errorf("undo of a file changed since: %+v, a.txt %q", u, read("a.txt"))
			}
			if u := f.undo(true); u.Err != "" || !slices.Equal(u.Restored, []string{"a.txt"}) || read("a.txt") != "zero\n" {
				t.Errorf("forced undo: %+v, a.txt %q", u, read("a.txt"))
			}
			if u := f.undo(false); !strings.Contains(u.Err, "nothing to undo") {
				t.Errorf("undo with nothing left: %+v", u)
			}
		})
	}
}

// TestFrontEndConformanceUIRouting: a plugin's question goes to the
// session whose turn ran the action, not to the other open one (serve
// and acp: chat has one session).
func TestFrontEndConformanceUIRouting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge per front end")
	}
	t.Parallel()
	type asked struct{ session, title string }
	t.Run("serve", func(t *testing.T) {
		t.Parallel()
		home, ws := t.TempDir(), t.TempDir()
		conformHome(t, home, ws, "ask", false)
		e := &serveEnv{t: t, home: home, ws: ws}
		c := e.start()
		var mu sync.Mutex
		var got []asked
		c.Handle("rx/ui/request", func(_ context.Context, raw json.RawMessage) (any, error) {
			var r struct {
				SessionID string `json:"agentSessionId"`
				Title     string
				Fields    []struct {
					Key     string
					Options []string
				}
			}
			if err := json.Unmarshal(raw, &r); err != nil || len(r.Fields) == 0 || len(r.Fields[0].Options) == 0 {
				return map[string]any{"cancelled": true}, nil
			}
			mu.Lock()
			got = append(got, asked{r.SessionID, r.Title})
			mu.Unlock()
			return map[string]any{"cancelled": false, "values": map[string]string{r.Fields[0].Key: r.Fields[0].Options[0]}}, nil
		})
		initialized(t, c, clientCaps(fullRx(), nil))
		a, b := newSession(t, c), newSession(t, c)
		if r := prompt(t, c, b, "/conform:ask"); !strings.Contains(r.Text, "picked left") {
			t.Errorf("the action's turn: %+v", r)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0].session != b {
			t.Errorf("questions %+v, want one in session %s (not %s)", got, b, a)
		}
		shutdownExit(t, c)
	})
	t.Run("acp", func(t *testing.T) {
		t.Parallel()
		home, ws := t.TempDir(), t.TempDir()
		conformHome(t, home, ws, "ask", false)
		p := startACP(t, home, ws)
		var mu sync.Mutex
		var got []asked
		p.onPermission(func(raw json.RawMessage) string {
			var r struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ToolCallID string `json:"toolCallId"`
					Title      string `json:"title"`
				} `json:"toolCall"`
				Options []struct {
					OptionID string `json:"optionId"`
				} `json:"options"`
			}
			_ = json.Unmarshal(raw, &r)
			mu.Lock()
			got = append(got, asked{r.SessionID, r.ToolCall.Title})
			mu.Unlock()
			if len(r.Options) == 0 {
				return "reject_once"
			}
			return r.Options[0].OptionID
		})
		var sa, sb struct{ SessionID string }
		p.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &sa)
		p.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, &sb)
		from := p.updateCount()
		var done struct{ StopReason string }
		p.call("session/prompt", map[string]any{"sessionId": sb.SessionID, "prompt": []any{map[string]string{"type": "text", "text": "/conform:ask"}}}, &done)
		if text := p.agentText(sb.SessionID, from); !strings.Contains(text, "picked left") {
			t.Errorf("the action's turn: %s %q", done.StopReason, text)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0].session != sb.SessionID {
			t.Errorf("questions %+v, want one in session %s (not %s)", got, sb.SessionID, sa.SessionID)
		}
		p.stop()
	})
}
