package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// contentRuntime is a runtime whose generations also serve md and mcp,
// as a pluginrt generation serves its packages' contents.
type contentRuntime struct {
	Runtime
	md  *plugincontent.Set
	mcp *mcphost.Host
}

func (r contentRuntime) Acquire() (Pinned, func()) {
	p, release := r.Runtime.Acquire()
	return withContents{Pinned: p, md: r.md, mcp: r.mcp}, release
}

type withContents struct {
	Pinned
	md  *plugincontent.Set
	mcp *mcphost.Host
}

func (w withContents) Markdown() *plugincontent.Set { return w.md }
func (w withContents) MCP() *mcphost.Host           { return w.mcp }

// withContent serves md and mcp (either may be nil) beside the runtime
// set so far; it goes after onPlugins.
func withContent(md *plugincontent.Set, h *mcphost.Host) option {
	return func(o *Options) { o.Runtime = contentRuntime{Runtime: o.Runtime, md: md, mcp: h} }
}

// kitFiles is the package "kit": a command, an inline skill and an agent
// whose tools are Claude's Read only.
var kitFiles = map[string]string{
	"commands/review.md":    "---\ndescription: review a file\nargument-hint: <file> <focus>\n---\nReview $1 focusing on $ARGUMENTS. Cost: $$5. Missing: [$3]",
	"skills/style/SKILL.md": "---\nname: style\ndescription: the house style\n---\nUse tabs. Name things plainly.",
	"agents/reader.md":      "---\nname: reader\ndescription: reads files and reports\ntools: [Read]\nmodel: sonnet\n---\nRead what the task names and report it verbatim.",
}

// loadKit writes files as the package kit and loads its contents.
func loadKit(t *testing.T, files map[string]string) *plugincontent.Set {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var roots []plugincontent.Root
	for _, k := range []plugincontent.Kind{plugincontent.KindCommands, plugincontent.KindSkills, plugincontent.KindAgents} {
		roots = append(roots, plugincontent.Root{Path: filepath.Join(dir, string(k)), Plugin: "kit", Kind: k, Scope: plugincontent.ScopeCustom})
	}
	set, warns := plugincontent.Load(roots, plugincontent.Options{})
	if len(warns) > 0 {
		t.Fatalf("loading kit: %v", warns)
	}
	return set
}

func lastUser(req providers.Request) string {
	msgs := req.Body.Messages
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == extproto.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

func toolSchemaNames(req providers.Request) []string {
	var out []string
	for _, s := range req.Body.Tools {
		out = append(out, s.Name)
	}
	return out
}

func userMessages(us []Update) []string {
	var out []string
	for _, u := range merged(us) {
		if u.Kind == UpdateUserMessage {
			out = append(out, u.Text)
		}
	}
	return out
}

func notices(us []Update, kind NoticeKind) []string {
	var out []string
	for _, u := range us {
		if u.Kind == UpdateNotice && u.Notice.Kind == kind {
			out = append(out, u.Notice.Text)
		}
	}
	return out
}

// TestSlashCommandReachesModelExpanded: a typed command line is shown as
// typed, while input.receive and the model get its expansion; prose that
// starts with "/" is sent as it is, and an unknown /name is sent with a
// notice.
func TestSlashCommandReachesModelExpanded(t *testing.T) {
	t.Parallel()
	const expanded = "Review main.go focusing on main.go bugs. Cost: $5. Missing: []"
	cases := []struct {
		line, model, notice string
	}{
		{"/kit:review main.go bugs", expanded, ""},
		{"/review main.go bugs", expanded, ""}, // the hidden short alias
		{"  /kit:review   main.go bugs ", expanded, ""},
		{"/kit:style main.go", "# Skill: style\n> the house style\n(scope: custom · ", ""},
		{"//kit:review is a comment", "//kit:review is a comment", ""},
		{"/* not a command */", "/* not a command */", ""},
		{"/src/main.go looks wrong", "/src/main.go looks wrong", ""},
		{"/nope main.go", "/nope main.go", "unknown command: /nope main.go — sent as a regular message"},
	}
	md := loadKit(t, kitFiles)
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "watch", intercepts: []extproto.HookPoint{extproto.InputReceive}})
			prov := newScripted(answer("done"))
			h := newHarness(t, prov, onPlugins(ps), withContent(md, nil))
			s := h.session()
			if _, err := s.Prompt(ctx(t), c.line); err != nil {
				t.Fatal(err)
			}
			got := lastUser(prov.requests()[0])
			if !strings.HasPrefix(got, c.model) {
				t.Errorf("the model got %q, want %q", got, c.model)
			}
			if in := ps.lines(t, "watch input "); len(in) != 1 || !strings.HasPrefix(c.model, strings.SplitN(in[0], "\\n", 2)[0]) {
				t.Errorf("input.receive saw %q, want the text the model got", in)
			}
			if shown := userMessages(h.updates.of(s.ID())); len(shown) != 1 || shown[0] != strings.TrimSpace(c.line) && shown[0] != c.line {
				t.Errorf("the user message shown is %q, want the typed line", shown)
			}
			if n := notices(h.updates.of(s.ID()), NoticeWarning); c.notice == "" && len(n) > 0 || c.notice != "" && !slices.Equal(n, []string{c.notice}) {
				t.Errorf("notices %q, want %q", n, c.notice)
			}
			if hist := s.History(); hist[0].Content != got {
				t.Errorf("history keeps %q, want what the model got", hist[0].Content)
			}
		})
	}
}

// TestResolve is the front end's question: what would this line do?
func TestResolve(t *testing.T) {
	t.Parallel()
	md := loadKit(t, kitFiles)
	h := newHarness(t, newScripted(), withContent(md, nil))
	s := h.session()
	cases := []struct {
		line string
		want Resolution
		ok   bool
	}{
		{"/kit:review a b", Resolution{Kind: SlashCommand, Name: "kit:review"}, true},
		{"/review", Resolution{Kind: SlashCommand, Name: "review"}, true},
		{"/kit:style", Resolution{Kind: SlashSkill, Name: "kit:style"}, true},
		{"/style x", Resolution{Kind: SlashSkill, Name: "kit:style"}, true},
		{"/kit:agent:reader read a.txt", Resolution{Kind: SlashSubagent, Name: "kit:agent:reader"}, true},
		{"/kit:agent:reader", Resolution{Kind: SlashSubagent, Name: "kit:agent:reader", Notice: "usage: /reader <task>"}, true},
		{"/kit:deploy now", Resolution{}, false}, // an extension action, maybe: the front end's
		{"/mcp__x__y", Resolution{}, false},
		{"hello /kit:review", Resolution{}, false},
		{"//kit:review", Resolution{}, false},
		{"/", Resolution{}, false},
		{"/ kit:review", Resolution{}, false},
		{"/a/b", Resolution{}, false},
	}
	for _, c := range cases {
		got, ok := s.Resolve(c.line)
		if got != c.want || ok != c.ok {
			t.Errorf("Resolve(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
	// Without packages nothing is a command.
	bare := newHarness(t, newScripted()).session()
	if got, ok := bare.Resolve("/kit:review a"); ok {
		t.Errorf("Resolve without contents = %+v", got)
	}
}

// TestRunSkillInlineByTheModel: the package tools are offered beside the
// built-ins and run_skill returns the pinned render of an inline skill.
func TestRunSkillInlineByTheModel(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(call("c1", "run_skill", map[string]any{"name": "style [inline]", "arguments": "main.go"})),
		answer("styled"),
	)
	h := newHarness(t, prov, withApproval(ApproveAuto), withContent(loadKit(t, kitFiles), nil))
	s := h.session()
	if res, err := s.Prompt(ctx(t), "tidy main.go"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	reqs := prov.requests()
	names := toolSchemaNames(reqs[0])
	for _, want := range []string{"read_file", "run_command", "slash_command", "run_skill", "read_skill"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}
	result := s.History()[2].Content
	for _, want := range []string{"<skill-pin name=\"style\">", "# Skill: style", "Use tabs.", "Arguments: main.go", "</skill-pin>"} {
		if !strings.Contains(result, want) {
			t.Errorf("run_skill result %q lacks %q", result, want)
		}
	}
	// run_skill is the subagent class: it runs unasked (a subagent's
	// own calls are asked about one by one).
	if q := h.editor.questions(); len(q) != 0 {
		t.Errorf("questions %+v", q)
	}
}

// TestSubagentRunsWithItsAllowList: an agent whose tools are [Read] runs
// as a nested turn with read_file only; a call outside its list fails; its
// progress is marked in the parent's updates; only its answer reaches the
// parent's history.
func TestSubagentRunsWithItsAllowList(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(call("c1", "run_skill", map[string]any{"name": "reader", "arguments": "read a.txt"})),
		calls(call("c1", "run_command", map[string]any{"command": []string{"true"}}), call("c2", "read_file", map[string]any{"path": "a.txt"})),
		answer("a.txt says: alpha"),
		answer("The subagent found alpha."),
	)
	h := newHarness(t, prov, withContent(loadKit(t, kitFiles), nil))
	h.write("a.txt", "alpha")
	s := h.session()
	if res, err := s.Prompt(ctx(t), "what is in a.txt?"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	reqs := prov.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	if got := toolSchemaNames(reqs[1]); !slices.Equal(got, []string{"read_file"}) {
		t.Errorf("the subagent's tools are %v, want [read_file]", got)
	}
	child := reqs[1].Body.Messages
	if len(child) != 2 || child[1].Content != "read a.txt" || !strings.Contains(child[0].Content, "# Subagent: kit:agent:reader") || !strings.Contains(child[0].Content, "Read what the task names") {
		t.Errorf("the subagent's first request %+v", child)
	}
	if reqs[1].Ref != "test/m1" {
		t.Errorf("the subagent ran on %s: the Claude alias sonnet means the session's model", reqs[1].Ref)
	}
	if got := reqs[2].Body.Messages[3].Content; !strings.Contains(got, "unknown tool \"run_command\"; the tools are read_file") {
		t.Errorf("the excluded tool's result %q", got)
	}
	hist := s.History()
	if len(hist) != 4 || hist[2].Content != "a.txt says: alpha" || hist[3].Content != "The subagent found alpha." {
		t.Fatalf("parent history %+v", hist)
	}
	var marked []string
	for _, u := range h.updates.of(s.ID()) {
		if u.Subagent != nil {
			if u.Subagent.ParentToolCallID != "tc1" || u.Subagent.Name != "kit:agent:reader" {
				t.Errorf("subagent mark %+v", u.Subagent)
			}
			if u.ToolCall != nil {
				marked = append(marked, u.ToolCall.ID+" "+string(u.ToolCall.Status))
			}
		}
	}
	id := "sub1.1/"
	want := []string{id + "c1 pending", id + "c1 failed", id + "c2 pending", id + "c2 in_progress", id + "c2 completed"}
	if !slices.Equal(marked, want) {
		t.Errorf("subagent tool updates %q, want %q", marked, want)
	}
}

// TestSubagentTypedByTheUser: /kit:agent:reader runs it directly; without
// a task the usage notice is all that happens.
func TestSubagentTypedByTheUser(t *testing.T) {
	t.Parallel()
	prov := newScripted(answer("report: nothing"))
	h := newHarness(t, prov, withContent(loadKit(t, kitFiles), nil))
	s := h.session()
	if res, err := s.Prompt(ctx(t), "/kit:agent:reader"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if n := notices(h.updates.of(s.ID()), NoticeWarning); !slices.Equal(n, []string{"usage: /reader <task>"}) || len(prov.requests()) != 0 || len(s.History()) != 0 {
		t.Fatalf("notices %q, %d requests, history %+v", n, len(prov.requests()), s.History())
	}
	if res, err := s.Prompt(ctx(t), "/kit:agent:reader list the files"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if got := lastUser(prov.requests()[0]); got != "list the files" {
		t.Errorf("the subagent got %q", got)
	}
	hist := s.History()
	if len(hist) != 2 || hist[0].Content != "/kit:agent:reader list the files" || hist[1].Content != "report: nothing" {
		t.Errorf("history %+v", hist)
	}
}

// TestCancelReachesSubagent: cancelling the parent's turn while its
// subagent streams ends both.
func TestCancelReachesSubagent(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(call("c1", "run_skill", map[string]any{"name": "reader", "arguments": "wait"})),
		step{chunks: []extproto.ProviderChunk{text("reading")}, hang: true},
	)
	prov.started = make(chan providers.Request, 2)
	h := newHarness(t, prov, withContent(loadKit(t, kitFiles), nil))
	s := h.session()
	go func() {
		<-prov.started
		<-prov.started // the subagent's stream
		s.Cancel()
	}()
	res, err := s.Prompt(ctx(t), "go")
	if err != nil || res.Stop != StopCancelled {
		t.Fatalf("Prompt = %+v, %v; want cancelled", res, err)
	}
	prov.mu.Lock()
	cancelled := prov.cancelled
	prov.mu.Unlock()
	if cancelled != 1 {
		t.Errorf("%d streams saw the cancel, want the subagent's", cancelled)
	}
	calls := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolFailed)
	if len(calls) != 1 || calls[0].ID != "c1" || !strings.Contains(calls[0].Output, "cancelled") {
		t.Errorf("run_skill ended as %+v", calls)
	}
}

// everything starts @modelcontextprotocol/server-everything over stdio
// and waits for its tools.
func everything(t *testing.T, onNotice func(mcphost.Notice)) *mcphost.Host {
	t.Helper()
	dir := os.Getenv("RX_MCP_CACHE")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "rx-bridge-mcp")
	}
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skipf("@modelcontextprotocol/server-everything is not installed (%s): run `make mcp-setup`", entry)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("node is not on PATH: %v", err)
	}
	h := mcphost.New([]mcphost.Server{{Name: "everything", Command: node, Args: []string{entry, "stdio"}, AutoStart: true, Source: mcphost.SourceUser}},
		mcphost.Options{Workspace: t.TempDir(), OnNotice: onNotice})
	t.Cleanup(func() { _ = h.Close() })
	if _, err := h.Connect(ctx(t), "everything"); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestMCPToolCallThroughATurn: the model calls server-everything's echo;
// in ask mode the user is asked unless the server marks echo
// readOnlyHint (MCP tools go through the approval table like the
// built-ins), the
// extensions see the mcp__ name at tool.before, permission.decision and
// tool.after, and the result comes back. An extension's deny blocks it.
func TestMCPToolCallThroughATurn(t *testing.T) {
	t.Parallel()
	h0 := everything(t, nil)
	for _, deny := range []bool{false, true} {
		t.Run(fmt.Sprint("deny=", deny), func(t *testing.T) {
			t.Parallel()
			spec := pluginSpec{id: "watch", intercepts: []extproto.HookPoint{extproto.ToolBefore, extproto.PermissionDecision, extproto.ToolAfter}}
			if deny {
				spec.rules = map[extproto.HookPoint]rule{extproto.PermissionDecision: {Decision: extproto.DecisionDeny, Reason: "no echo", Tool: "mcp__everything__echo"}}
			}
			ps := startPlugins(t, spec)
			prov := newScripted(calls(call("e1", "mcp__everything__echo", map[string]any{"message": "hi there"})), answer("it echoed"))
			h := newHarness(t, prov, withApproval(ApproveAsk), onPlugins(ps), withContent(nil, h0))
			s := h.session()
			if res, err := s.Prompt(ctx(t), "echo something"); err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
			if names := toolSchemaNames(prov.requests()[0]); !slices.Contains(names, "mcp__everything__echo") || !slices.Contains(names, "read_file") {
				t.Errorf("tools %v", names)
			}
			readOnly := slices.ContainsFunc(h0.Tools(), func(mt mcphost.Tool) bool { return mt.Name == "mcp__everything__echo" && mt.ReadOnly })
			if q := h.editor.questions(); readOnly && len(q) != 0 || !readOnly && (len(q) != 1 || q[0].ToolCall.Name != "mcp__everything__echo" || q[0].Grant != "Allow mcp__everything__echo for this session") {
				t.Errorf("the user was asked %+v (echo marked read-only: %v)", q, readOnly)
			}
			result := s.History()[2].Content
			seen := ps.lines(t, "watch tool ")
			if deny {
				if !strings.Contains(result, "permission denied by extension watch") || !slices.Equal(seen, []string{"permission.decision mcp__everything__echo"}) {
					t.Errorf("result %q, extension saw %q", result, seen)
				}
				return
			}
			if result != "Echo: hi there" {
				t.Errorf("result %q", result)
			}
			if want := []string{"permission.decision mcp__everything__echo", "tool.before mcp__everything__echo", "tool.after mcp__everything__echo"}; !slices.Equal(seen, want) {
				t.Errorf("the extension saw %q, want %q", seen, want)
			}
		})
	}
}

// serveMCP is this binary as a stdio MCP server (envChild "mcp") with an
// echo tool, write_file and read_file (marked readOnlyHint) on absolute
// paths, and a crash tool that kills the server mid-call.
func serveMCP() {
	s := mcp.NewServer(&mcp.Implementation{Name: "agent-test", Version: "1"}, nil)
	obj := json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)
	s.AddTool(&mcp.Tool{Name: "echo", Description: "echoes", InputSchema: obj}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Message string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message}}}, nil
	})
	file := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}`)
	s.AddTool(&mcp.Tool{Name: "write_file", Description: "writes a file", InputSchema: file}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Path, Content string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + a.Path}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "read_file", Description: "reads a file", InputSchema: file, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct{ Path string }
		_ = json.Unmarshal(r.Params.Arguments, &a)
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "dies", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "the server fell over")
		os.Exit(3)
		return nil, nil
	})
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}

// TestMCPServerCrashMidTurn: a server that dies during a call fails the
// call naming it, every session gets a notice, its tools are gone from
// the next round, and the turn ends normally.
func TestMCPServerCrashMidTurn(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var agent atomic.Pointer[Agent]
	host := mcphost.New([]mcphost.Server{{Name: "flaky", Command: exe, Env: map[string]string{envChild: "mcp"}, AutoStart: true, Source: mcphost.SourceUser}},
		mcphost.Options{OnNotice: func(n mcphost.Notice) {
			if a := agent.Load(); a != nil {
				a.MCPNotice(n)
			}
		}})
	t.Cleanup(func() { _ = host.Close() })
	if _, err := host.Connect(ctx(t), "flaky"); err != nil {
		t.Fatal(err)
	}
	prov := newScripted(calls(call("k1", "mcp__flaky__crash", map[string]any{})), answer("it crashed"))
	h := newHarness(t, prov, withContent(nil, host))
	agent.Store(h.agent)
	s := h.session()
	if res, err := s.Prompt(ctx(t), "crash it"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	reqs := prov.requests()
	if !slices.Contains(toolSchemaNames(reqs[0]), "mcp__flaky__crash") || slices.ContainsFunc(toolSchemaNames(reqs[1]), func(n string) bool { return strings.HasPrefix(n, "mcp__flaky__") }) {
		t.Errorf("tools before %v and after the crash %v", toolSchemaNames(reqs[0]), toolSchemaNames(reqs[1]))
	}
	if got := s.History()[2].Content; !strings.Contains(got, `"flaky"`) {
		t.Errorf("the failed call says %q, want the server named", got)
	}
	// The notice comes from the host's watcher: wait for it (the test's
	// deadline bounds the wait).
	for {
		n := notices(h.updates.of(s.ID()), NoticeMCP)
		if len(n) > 0 {
			if !strings.Contains(n[0], "flaky") {
				t.Errorf("notice %q does not name the server", n[0])
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestSubagentIsBoundedByItsStepBudget: a subagent's run is bounded by
// the step budget, not by the tool timeout of the run_skill call that
// started it; a run that ends at its budget returns what it said, marked.
func TestSubagentIsBoundedByItsStepBudget(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(call("c1", "run_skill", map[string]any{"name": "reader", "arguments": "read everything"})),
		calls(call("r1", "read_file", map[string]any{"path": "a.txt"})),
		calls(call("r2", "read_file", map[string]any{"path": "a.txt"})),
		answer("partial, then"),
	)
	h := newHarness(t, prov, withContent(loadKit(t, kitFiles), nil), func(o *Options) {
		o.Settings.Steps = 2
		o.Settings.ToolTimeout = time.Nanosecond // over before any tool starts
	})
	s := h.session()
	if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if n := len(prov.requests()); n != 4 {
		t.Fatalf("%d requests, want 2 of the subagent's between the parent's", n)
	}
	got := s.History()[2].Content
	if !strings.HasPrefix(got, "Let me look.") || !strings.Contains(got, "reached its step budget of 2 model requests") {
		t.Errorf("run_skill result %q", got)
	}
}
