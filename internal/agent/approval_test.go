package agent

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

// askedNames are the tools the user was asked about, in order.
func askedNames(qs []PermissionRequest) []string {
	var names []string
	for _, q := range qs {
		names = append(names, q.ToolCall.Name)
	}
	return names
}

// TestAskModeAsksForEditsAndCommandsOnly: in ask mode (the default) the
// user is asked about edits and commands, never about reads, searches or
// the plan; auto asks for commands only; yolo for nothing.
func TestAskModeAsksForEditsAndCommandsOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode  Approval
		asked []string
	}{
		{ApproveAsk, []string{"apply_edit", "run_command"}},
		{"", []string{"apply_edit", "run_command"}},
		{ApproveAuto, []string{"run_command"}},
		{ApproveYolo, nil},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			t.Parallel()
			prov := newScripted(calls(
				call("c1", "read_file", map[string]any{"path": "a.txt"}),
				call("c2", "list_files", map[string]any{}),
				call("c3", "search_text", map[string]any{"pattern": "x"}),
				call("c4", "todo_write", map[string]any{"todos": []any{}}),
				call("c5", "apply_edit", map[string]any{"path": "a.txt", "content": "y"}),
				call("c6", "run_command", map[string]any{"command": []string{"true"}}),
			), answer("ok"))
			h := newHarness(t, prov, withApproval(tc.mode))
			h.write("a.txt", "x")
			h.editor.answers = func(PermissionRequest) PermissionOutcome { return PermissionDeny }
			s := h.session()
			if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
			if got := askedNames(h.editor.questions()); !slices.Equal(got, tc.asked) {
				t.Errorf("asked about %v, want %v", got, tc.asked)
			}
		})
	}
}

// mcpTestHost is this test binary as an MCP server named fs (serveMCP):
// mcp__fs__write_file writes, mcp__fs__read_file is marked readOnlyHint.
func mcpTestHost(t *testing.T) *mcphost.Host {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	h := mcphost.New([]mcphost.Server{{Name: "fs", Command: exe, Env: map[string]string{envChild: "mcp"}, AutoStart: true, Source: mcphost.SourceUser}}, mcphost.Options{})
	t.Cleanup(func() { _ = h.Close() })
	if _, err := h.Connect(ctx(t), "fs"); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestMCPToolIsAskedInAskMode: an MCP tool goes through the approval
// table like a built-in: in ask mode mcp__fs__write_file is asked about
// and, denied, does not write; mcp__fs__read_file, which its server marks
// readOnlyHint, is a read: it runs unasked.
func TestMCPToolIsAskedInAskMode(t *testing.T) {
	t.Parallel()
	host := mcpTestHost(t)
	dir := t.TempDir()
	target, source := filepath.Join(dir, "out.txt"), filepath.Join(dir, "in.txt")
	if err := os.WriteFile(source, []byte("secret plans"), 0o644); err != nil {
		t.Fatal(err)
	}
	prov := newScripted(calls(
		call("w1", "mcp__fs__write_file", map[string]any{"path": target, "content": "pwned"}),
		call("r1", "mcp__fs__read_file", map[string]any{"path": source}),
	), answer("done"))
	h := newHarness(t, prov, withApproval(ApproveAsk), withContent(nil, host))
	h.editor.answers = func(PermissionRequest) PermissionOutcome { return PermissionDeny }
	s := h.session()
	if res, err := s.Prompt(ctx(t), "write it"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if got := askedNames(h.editor.questions()); !slices.Equal(got, []string{"mcp__fs__write_file"}) {
		t.Errorf("asked about %v, want only mcp__fs__write_file", got)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the denied MCP call wrote %s (stat: %v)", target, err)
	}
	hist := s.History()
	if got := hist[2].Content; !strings.HasPrefix(got, "permission denied by user") {
		t.Errorf("write_file result %q", got)
	}
	if got := hist[3].Content; got != "secret plans" {
		t.Errorf("read_file result %q", got)
	}
}

// allowSession answers "allow for this session" to the questions about
// the calls whose ids are in ids and denies the rest.
func allowSession(ids ...string) func(PermissionRequest) PermissionOutcome {
	return func(q PermissionRequest) PermissionOutcome {
		if slices.Contains(ids, q.ToolCall.ID) {
			return PermissionAllowSession
		}
		return PermissionDeny
	}
}

// TestSessionGrantScope: "allow for this session" of a command covers
// that exact argv in that exact directory, of an edit that exact file,
// of any other tool the tool; the session keeps the grants until it
// closes.
func TestSessionGrantScope(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(
			call("c1", "run_command", map[string]any{"command": []string{"ls"}}),
			call("c2", "run_command", map[string]any{"command": []string{"ls"}, "cwd": "."}),
			call("c3", "run_command", map[string]any{"command": []string{"rm", "-rf", "build"}}),
			call("c4", "run_command", map[string]any{"command": []string{"ls"}, "cwd": "sub"}),
			call("c5", "run_command", map[string]any{"command": []string{"ls", "-a"}}),
		),
		calls(
			call("e1", "apply_edit", map[string]any{"path": "a.txt", "content": "1"}),
			call("e2", "apply_edit", map[string]any{"path": "./a.txt", "content": "2"}),
			call("e3", "apply_edit", map[string]any{"path": "b.txt", "content": "3"}),
		),
		answer("ok"),
	)
	h := newHarness(t, prov, withApproval(ApproveAsk))
	h.write("sub/keep", "")
	h.editor.answers = allowSession("c1", "e1")
	s := h.session()
	if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	var asked, labels []string
	for _, q := range h.editor.questions() {
		asked = append(asked, q.ToolCall.ID)
		labels = append(labels, q.Grant)
	}
	if want := []string{"c1", "c3", "c4", "c5", "e1", "e3"}; !slices.Equal(asked, want) {
		t.Errorf("asked about %v, want %v", asked, want)
	}
	wantLabels := []string{
		"Allow `ls` in the workspace root for this session",
		"Allow `rm -rf build` in the workspace root for this session",
		"Allow `ls` in sub/ for this session",
		"Allow `ls -a` in the workspace root for this session",
		"Allow edits to a.txt for this session",
		"Allow edits to b.txt for this session",
	}
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("grant labels\n got %q\nwant %q", labels, wantLabels)
	}
	if c := h.editor.questions()[2].Command; c == nil || c.Dir != filepath.Join(h.ws, "sub") || !slices.Equal(c.Argv, []string{"ls"}) {
		t.Errorf("command of c4 %+v", c)
	}
	ran := map[string]bool{}
	for _, c := range findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolInProgress) {
		ran[c.ID] = true
	}
	for id, want := range map[string]bool{"c1": true, "c2": true, "c3": false, "c4": false, "c5": false, "e1": true, "e2": true, "e3": false} {
		if ran[id] != want {
			t.Errorf("call %s ran = %v, want %v", id, ran[id], want)
		}
	}
	if b, err := os.ReadFile(filepath.Join(h.ws, "a.txt")); err != nil || string(b) != "2" {
		t.Errorf("a.txt = %q, %v", b, err)
	}

	// Closed, the session forgets: loaded again, ls is asked about.
	id := s.ID()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	prov.push(calls(call("c6", "run_command", map[string]any{"command": []string{"ls"}})), answer("ok"))
	s2, err := h.agent.Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	before := len(h.editor.questions())
	if res, err := s2.Prompt(ctx(t), "again"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if q := h.editor.questions()[before:]; len(q) != 1 || q[0].ToolCall.ID != "c6" {
		t.Errorf("after the close asked about %v, want c6", askedNames(q))
	}
}

// TestApprovalTable: every cell of the approval table, and the class of
// every kind of tool.
func TestApprovalTable(t *testing.T) {
	t.Parallel()
	want := map[ToolClass]string{ // ask auto yolo
		ClassRead:        "allow allow allow",
		ClassSearch:      "allow allow allow",
		ClassEdit:        "ask allow allow",
		ClassCommand:     "ask ask allow",
		ClassMCPRead:     "allow allow allow",
		ClassMCP:         "ask ask allow",
		ClassContentRead: "allow allow allow",
		ClassSubagent:    "allow allow allow",
		ClassOther:       "ask ask allow",
	}
	if len(want) != len(ToolClasses) {
		t.Fatalf("%d classes, the test knows %d", len(ToolClasses), len(want))
	}
	for _, c := range ToolClasses {
		var got []string
		for _, m := range Approvals {
			got = append(got, string(Decide(m, c)))
		}
		if strings.Join(got, " ") != want[c] {
			t.Errorf("%s: %v, want %s", c, got, want[c])
		}
		if Decide("", c) != Decide(ApproveAsk, c) || Decide("bogus", c) != Decide(ApproveAsk, c) {
			t.Errorf("%s: an unset or unknown mode is not ask", c)
		}
	}
	if Decide(ApproveAuto, "unknown") != Ask || Decide(ApproveYolo, "unknown") != Allow {
		t.Error("an unknown class is not other")
	}
	builtins := tools.Builtins()
	for name, c := range map[string]ToolClass{"read_file": ClassRead, "todo_write": ClassRead, "list_files": ClassSearch, "search_text": ClassSearch, "apply_edit": ClassEdit, "run_command": ClassCommand} {
		tool, _ := builtins.Lookup(name)
		if got := classify(tool); got != c {
			t.Errorf("%s is %s, want %s", name, got, c)
		}
	}
	for _, tc := range []struct {
		tool tools.Tool
		want ToolClass
	}{
		{mcpTool{t: mcphost.Tool{Name: "mcp__a__b"}}, ClassMCP},
		{mcpTool{t: mcphost.Tool{Name: "mcp__a__b", ReadOnly: true}}, ClassMCPRead},
		{contentTool{plugincontent.Tool{Schema: extproto.ProviderToolSchema{Name: plugincontent.ToolSlashCommand}, ReadOnly: true}}, ClassContentRead},
		{contentTool{plugincontent.Tool{Schema: extproto.ProviderToolSchema{Name: plugincontent.ToolReadSkill}, ReadOnly: true}}, ClassContentRead},
		{contentTool{plugincontent.Tool{Schema: extproto.ProviderToolSchema{Name: plugincontent.ToolRunSkill}}}, ClassSubagent},
	} {
		if got := classify(tc.tool); got != tc.want {
			t.Errorf("%s is %s, want %s", tc.tool.Schema().Name, got, tc.want)
		}
	}
}

// TestApprovalTableMatchesDocs: the table in docs/ARCHITECTURE.md ("The
// approval table") is the Go table, row for row.
func TestApprovalTableMatchesDocs(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	var header []string
	var rows [][]string
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "### The approval table":
			in = true
			continue
		case !in:
			continue
		case strings.HasPrefix(line, "#"):
			in = false
		case strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "|---"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			for i := range cells {
				cells[i] = strings.TrimSpace(cells[i])
			}
			if header == nil {
				header = cells
			} else {
				rows = append(rows, cells)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	wantHeader := []string{"Tool class"}
	for _, m := range Approvals {
		wantHeader = append(wantHeader, string(m))
	}
	if !slices.Equal(header, wantHeader) {
		t.Fatalf("the docs' table header is %q, want %q", header, wantHeader)
	}
	var classes []ToolClass
	for _, r := range rows {
		classes = append(classes, ToolClass(r[0]))
		for i, m := range Approvals {
			if got, want := r[i+1], string(Decide(m, ToolClass(r[0]))); got != want {
				t.Errorf("docs: %s in %s is %s, the code says %s", r[0], m, got, want)
			}
		}
	}
	if !slices.Equal(classes, ToolClasses) {
		t.Errorf("the docs' rows are %q, the code's classes %q", classes, ToolClasses)
	}
}

// TestGrantOffers: what "allow for this session" is offered as: no
// grant for a command that would not run or an edit outside the
// workspace, a label that never shows a secret, and any other tool by
// name.
func TestGrantOffers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted())
	s := h.session()
	for _, tc := range []struct {
		name  string
		class ToolClass
		args  string
		label string // "" = no grant offered
	}{
		{"run_command", ClassCommand, `{"command":"ls"}`, ""},
		{"run_command", ClassCommand, `{"command":["ls"],"shell":true}`, ""},
		{"run_command", ClassCommand, `{"command":["ls"],"cwd":".."}`, ""},
		{"run_command", ClassCommand, `{"command":["echo","a b"]}`, "Allow `echo 'a b'` in the workspace root for this session"},
		{"run_command", ClassCommand, `{"command":["curl","-H","Authorization: Bearer sk-abcdefghijklmnopqrstuvwxyz0123456789"]}`, "Allow `curl -H 'Authorization: Bearer [redacted]'` in the workspace root for this session"},
		{"apply_edit", ClassEdit, `{"path":"../x"}`, ""},
		{"apply_edit", ClassEdit, `{}`, ""},
		{"apply_edit", ClassEdit, `{"path":"d/notes.txt","content":""}`, "Allow edits to d/notes.txt for this session"},
		{"mcp__fs__write_file", ClassMCP, `{"path":"/etc/passwd"}`, "Allow mcp__fs__write_file for this session"},
	} {
		g, _, ok := s.grantFor(tc.name, tc.class, tc.args)
		if ok != (tc.label != "") || g.label != tc.label {
			t.Errorf("%s %s: offered %v %q, want %q", tc.name, tc.args, ok, g.label, tc.label)
		}
	}
}
