package hookrun

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// The tests of this file run the fixture packages of testdata/, written
// in the shape of published Claude Code plugins, against Claude Code's
// own contract for Claude-format parts (PLUGIN_CONTENTS §12).

// needPosixShell skips a test whose fixture is a shell script when no
// POSIX shell runs hooks here (Windows without Git Bash).
func needPosixShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		if _, ok := hostPlatform().gitBash(); !ok {
			t.Skip("no Git Bash: the fixture's hooks are POSIX shell scripts")
		}
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
}

// installFixture copies testdata/<name> to <parent>/<dir> and loads it as
// the installed package name.
func installFixture(t *testing.T, name, parent, dir string) Package {
	t.Helper()
	root := filepath.Join(parent, dir)
	copyDir(t, filepath.Join("testdata", name), root)
	m, err := manifest.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return Package{Name: name, Root: root, Manifest: m}
}

// copyFixture copies testdata/<name> into a fresh directory.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	copyDir(t, filepath.Join("testdata", name), dst)
	return dst
}

// copyDir copies the tree src to dst, every file executable.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// guardRule is a guard.*.local.md rule file of the guard fixture.
func guardRule(pattern, action, message string) string {
	return "---\npattern: " + pattern + "\naction: " + action + "\n---\n" + message + "\n"
}

func bashCall(cmd string) Payload {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return Payload{SessionID: "s1", ToolName: "bash", ToolArgs: b}
}

// TestGuardReadsProjectRules: the guard finds its rules in the project
// because its hook runs in the project directory, not the plugin root.
func TestGuardReadsProjectRules(t *testing.T) {
	t.Parallel()
	needPosixShell(t)
	tests := []struct {
		name, rule, cmd string
		block           bool
	}{
		{"block rule matches", guardRule("rm -rf", "block", "Recursive deletes are blocked here."), "rm -rf build", true},
		{"block rule does not match", guardRule("rm -rf", "block", "x"), "ls -la", false},
		{"warn rule", guardRule("git push", "warn", "Pushing? Check the branch."), "git push", false},
		{"no rule", "", "rm -rf build", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pkg := installFixture(t, "guard", t.TempDir(), "guard")
			ws := t.TempDir()
			if tc.rule != "" {
				writeTree(t, ws, map[string]string{".claude/guard.rule.local.md": tc.rule})
			}
			r := load(t, Sources{Workspace: ws, Packages: []Package{pkg}})
			block, notices := preToolUse(r, context.Background(), bashCall(tc.cmd))
			if (block != "") != tc.block {
				t.Fatalf("block %q (want blocked=%v), notices %q", block, tc.block, notices)
			}
			if tc.block && block != "Recursive deletes are blocked here." {
				t.Fatalf("block reason %q", block)
			}
			// The guard's systemMessage is a warning for the user.
			if tc.block && !strings.Contains(strings.Join(notices, "\n"), " — guard: Recursive deletes are blocked here.") {
				t.Fatalf("notices %q", notices)
			}
			if tc.name == "warn rule" && (len(notices) != 1 || !strings.HasSuffix(notices[0], " — guard: Pushing? Check the branch.")) {
				t.Fatalf("notices %q", notices)
			}
		})
	}
}

// TestGuardUnderPathWithSpace: the guard's command names
// ${CLAUDE_PLUGIN_ROOT} unquoted, as hookify and security-guidance do; a
// plugin root with a space (macOS's "Application Support", a user named
// "Jane Doe") must not break it, or the guard fails open.
func TestGuardUnderPathWithSpace(t *testing.T) {
	t.Parallel()
	needPosixShell(t)
	for _, dir := range []string{"My Plugins", "it's $HOME", `a "b" \c`} {
		t.Run(dir, func(t *testing.T) {
			t.Parallel()
			if runtime.GOOS == "windows" && strings.ContainsAny(dir, `"\`) {
				t.Skip("not a Windows file name")
			}
			pkg := installFixture(t, "guard", filepath.Join(t.TempDir(), dir), "guard")
			ws := t.TempDir()
			writeTree(t, ws, map[string]string{".claude/guard.rm.local.md": guardRule("rm -rf", "block", "No recursive deletes.")})
			r := load(t, Sources{Workspace: ws, Packages: []Package{pkg}})
			block, notices := preToolUse(r, context.Background(), bashCall("rm -rf build"))
			if block != "No recursive deletes." {
				t.Fatalf("block %q, notices %q", block, notices)
			}
		})
	}
}

// TestExpandQuotedRunsInSh runs, through sh, scripts naming the root in
// every quoting context, for roots holding characters a shell reads.
func TestExpandQuotedRunsInSh(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("sh -c: POSIX")
	}
	needPosixShell(t)
	roots := []string{"/plain/root", "/Users/Jane Doe/Library/Application Support/p", `/it's "q" $HOME \x`, "/a\tb/`c`"}
	scripts := []string{
		`printf '%s' ${CLAUDE_PLUGIN_ROOT}/x`,
		`printf '%s' "${CLAUDE_PLUGIN_ROOT}/x"`,
		`printf '%s' '${CLAUDE_PLUGIN_ROOT}/x'`,
		`printf '%s' $CLAUDE_PLUGIN_ROOT/x`,
		`printf '%s' %CLAUDE_PLUGIN_ROOT%/x`,
	}
	for _, root := range roots {
		for _, s := range scripts {
			got, err := exec.Command("sh", "-c", expandQuoted(s, root, posixShell)).Output()
			if err != nil || string(got) != root+"/x" {
				t.Errorf("root %q script %q: got %q (%v), want %q", root, s, got, err, root+"/x")
			}
		}
	}
}

func TestExpandQuoted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind         shellKind
		script, root string
		want         string
	}{
		{posixShell, `python3 ${CLAUDE_PLUGIN_ROOT}/h.py`, "/p", `python3 /p/h.py`},
		{posixShell, `python3 ${CLAUDE_PLUGIN_ROOT}/h.py`, "/a b", `python3 '/a b'/h.py`},
		{posixShell, `python3 "${CLAUDE_PLUGIN_ROOT}/h.py"`, "/a b", `python3 "/a b/h.py"`},
		{posixShell, `python3 "${CLAUDE_PLUGIN_ROOT}/h.py"`, `/a"$b`, `python3 "/a\"\$b/h.py"`},
		{posixShell, `echo '${CLAUDE_PLUGIN_ROOT}'`, "/a'b", `echo '/a'\''b'`},
		{posixShell, `echo \"${CLAUDE_PLUGIN_ROOT}`, "/a b", `echo \"'/a b'`},
		{posixShell, `echo ${CLAUDE_PLUGIN_ROOT:-x} $CLAUDE_PLUGIN_ROOTS`, "/a b", `echo ${CLAUDE_PLUGIN_ROOT:-x} $CLAUDE_PLUGIN_ROOTS`},
		{psShell, `& ${CLAUDE_PLUGIN_ROOT}\h.ps1`, `C:\Users\Jane Doe`, "& C:\\Users\\Jane` Doe\\h.ps1"},
		{psShell, `& "${CLAUDE_PLUGIN_ROOT}\h.ps1"`, `C:\a $b`, "& \"C:\\a `$b\\h.ps1\""},
		{psShell, `& '${CLAUDE_PLUGIN_ROOT}\h.ps1'`, `C:\it's`, `& 'C:\it''s\h.ps1'`},
		{cmdShell, `%CLAUDE_PLUGIN_ROOT%\h.cmd arg`, `C:\Program Files\p`, `"C:\Program Files\p"\h.cmd arg`},
		{cmdShell, `"%CLAUDE_PLUGIN_ROOT%\h.cmd" arg`, `C:\Program Files\p`, `"C:\Program Files\p\h.cmd" arg`},
		{cmdShell, `%CLAUDE_PLUGIN_ROOT%\h.cmd`, `C:\p`, `C:\p\h.cmd`},
	}
	for _, tc := range tests {
		if got := expandQuoted(tc.script, tc.root, tc.kind); got != tc.want {
			t.Errorf("%d %q root %q: got %s, want %s", tc.kind, tc.script, tc.root, got, tc.want)
		}
	}
}

// TestHookThatCannotStartIsShownOncePerSession: a hook whose program is
// missing fails open at every call; the user is told once per session,
// by a warning naming the plugin.
func TestHookThatCannotStartIsShownOncePerSession(t *testing.T) {
	t.Parallel()
	needPosixShell(t)
	tests := []struct {
		name string
		item map[string]any
	}{
		{"missing script (shell exit 127)", map[string]any{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/gone.sh"}},
		{"missing interpreter (shell exit 127)", map[string]any{"type": "command", "command": "rx-no-such-interpreter ${CLAUDE_PLUGIN_ROOT}/hooks/x.py"}},
		{"missing program (spawn error)", map[string]any{"type": "command", "command": "rx-no-such-program", "args": []string{}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pkg := claudePackage(t, "brokenguard", map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": []any{tc.item}}}}, nil)
			r := load(t, Sources{Packages: []Package{pkg}})
			for i, want := range []struct {
				session string
				notices int
			}{{"s1", 1}, {"s1", 0}, {"s2", 1}, {"s1", 0}} {
				p := bashCall("ls")
				p.SessionID = want.session
				block, notices := preToolUse(r, context.Background(), p)
				if block != "" || len(notices) != want.notices {
					t.Fatalf("call %d (%s): block %q notices %q", i, want.session, block, notices)
				}
				if want.notices == 1 && (!strings.HasPrefix(notices[0], "plugin brokenguard: its PreToolUse hook could not start") || !strings.HasSuffix(notices[0], "shown once this session")) {
					t.Fatalf("notice %q", notices[0])
				}
			}
		})
	}
}

// TestClaudePayloadHasEachEventsOwnFields: a Claude-format hook gets the
// common fields and its event's own, and no other event's.
func TestClaudePayloadHasEachEventsOwnFields(t *testing.T) {
	t.Parallel()
	common := []string{"cwd", "hook_event_name", "permission_mode", "session_id", "transcript_path"}
	tests := []struct {
		ev   Event
		own  []string
		p    Payload
		want map[string]any
	}{
		{PreToolUse, []string{"tool_input", "tool_name", "tool_use_id"},
			Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls"}`), ToolUseID: "toolu_1", PermissionMode: "plan"},
			map[string]any{"tool_use_id": "toolu_1", "permission_mode": "plan", "tool_name": "Bash"}},
		{PostToolUse, []string{"tool_input", "tool_name", "tool_response", "tool_use_id"},
			Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls"}`), ToolResult: "a.go", ToolUseID: "toolu_2"},
			map[string]any{"tool_response": map[string]any{"stdout": "a.go", "stderr": "", "interrupted": false}}},
		{PostToolUseFailure, []string{"error", "is_interrupt", "tool_input", "tool_name", "tool_use_id"},
			Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{}`), Error: "exit 1"}, map[string]any{"error": "exit 1"}},
		{PermissionRequest, []string{"tool_input", "tool_name"}, Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{}`), Subject: "x"}, nil},
		{UserPromptSubmit, []string{"prompt"}, Payload{Prompt: "hi", Turn: 3}, map[string]any{"prompt": "hi"}},
		{Stop, []string{"last_assistant_message", "stop_hook_active"}, Payload{LastAssistantText: "done", StopHookActive: true},
			map[string]any{"stop_hook_active": true, "last_assistant_message": "done"}},
		{SubagentStop, []string{"last_assistant_message", "stop_hook_active"}, Payload{}, map[string]any{"stop_hook_active": false}},
		{SessionStart, []string{"source"}, Payload{Source: "clear"}, map[string]any{"source": "clear"}},
		{SessionEnd, []string{"reason"}, Payload{Reason: "other"}, nil},
		{Notification, []string{"message", "notification_type"}, Payload{Message: "m", NotificationType: "permission_prompt"}, nil},
		{PreCompact, []string{"custom_instructions", "trigger"}, Payload{Trigger: "manual", CustomInstructions: "keep the plan"},
			map[string]any{"custom_instructions": "keep the plan"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.ev), func(t *testing.T) {
			t.Parallel()
			save := filepath.Join(t.TempDir(), "rec")
			pkg := claudePackage(t, "c", map[string]any{string(tc.ev): []any{map[string]any{"hooks": []any{
				claudeHelper(map[string]string{"HOOK_SAVE": save}, []string{}),
			}}}}, nil)
			r := load(t, Sources{Packages: []Package{pkg}})
			p := tc.p
			p.SessionID, p.TranscriptPath = "s1", "/home/u/.rx-bridge/sessions/s1.jsonl"
			r.Run(context.Background(), tc.ev, p)
			var got map[string]any
			if err := json.Unmarshal([]byte(readRecord(t, save).Stdin), &got); err != nil {
				t.Fatal(err)
			}
			keys := slices.Sorted(maps.Keys(got))
			want := slices.Sorted(slices.Values(append(slices.Clone(common), tc.own...)))
			if !slices.Equal(keys, want) {
				t.Fatalf("fields %v, want %v", keys, want)
			}
			if got["transcript_path"] != p.TranscriptPath || got["hook_event_name"] != string(tc.ev) {
				t.Fatalf("payload %v", got)
			}
			for k, v := range tc.want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s = %#v, want %#v", k, got[k], v)
				}
			}
		})
	}
}

// TestWorkspaceClaudeSettingsHooks: a repository's .claude/settings.json
// hooks are project hooks: not run unless the user enabled project hooks,
// and then never silently (the notice .reasonix/settings.json gets).
func TestWorkspaceClaudeSettingsHooks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		enabled bool
	}{{"project hooks off", false}, {"project hooks on", true}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := copyFixture(t, "claude-project")
			r, warns := Load(Sources{Workspace: ws, ProjectSettings: tc.enabled})
			t.Cleanup(r.Close)
			if !tc.enabled {
				want := filepath.Join(ws, ".claude", "settings.json") + ": 2 project hook(s) not run"
				if len(r.Listing()) != 0 || len(warns) != 1 || !strings.HasPrefix(warns[0].String(), want) {
					t.Fatalf("listing %v warns %v", r.Listing(), warns)
				}
				return
			}
			l := r.Listing()
			if len(warns) != 0 || len(l) != 2 || l[0].Scope != ScopeProject || !l[0].Claude || l[0].Event != PostToolUse || l[1].Event != PreToolUse {
				t.Fatalf("listing %+v warns %v", l, warns)
			}
			needPosixShell(t)
			block, _ := preToolUse(r, context.Background(), bashCall("git push --force"))
			if block != "no force pushes in this repository" {
				t.Fatalf("block %q", block)
			}
		})
	}
}

func TestReasonixToolInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, tool, args, updated string
		want, err                 string
	}{
		{"bash command rewritten", "bash", `{"command":"rm -rf build"}`, `{"command":"rm -rf ./build"}`, `{"command":"rm -rf ./build"}`, ""},
		{"file path renamed back", "write_file", `{"path":"a.go","content":"x"}`, `{"file_path":"/ws/b.go","content":"x"}`, `{"content":"x","path":"/ws/b.go"}`, ""},
		{"unchanged file path stays relative", "write_file", `{"path":"a.go","content":"x"}`, `{"file_path":"/ws/a.go","content":"y"}`, `{"content":"y","path":"a.go"}`, ""},
		{"member removed", "read_file", `{"path":"a.go","limit":10}`, `{"file_path":"/ws/a.go"}`, `{"path":"a.go"}`, ""},
		{"member added", "read_file", `{"path":"a.go"}`, `{"file_path":"/ws/a.go","limit":5}`, `{"limit":5,"path":"a.go"}`, ""},
		{"skill renamed back", "run_skill", `{"name":"s","arguments":"x"}`, `{"skill":"s","args":"y"}`, `{"arguments":"y","name":"s"}`, ""},
		{"argv command line maps word by word", "run_command", `{"command":["npm","run","test"],"cwd":"x"}`, `{"command":"pnpm run 'unit tests' \"a b\" c\\ d","cwd":"x"}`, `{"command":["pnpm","run","unit tests","a b","c d"],"cwd":"x"}`, ""},
		{"unchanged argv stays", "run_command", `{"command":["ls","a b"]}`, `{"command":"ls 'a b'","timeout":5000}`, `{"command":["ls","a b"],"timeout":5000}`, ""},
		{"shell command line cannot map", "run_command", `{"command":["rm","-rf","b"]}`, `{"command":"echo no && rm -rf b"}`, "", "needs a shell"},
		{"derived member cannot map", "apply_edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, `{"file_path":"/ws/a","old_string":"x","new_string":"z"}`, "", "cannot map back"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// What the hook was told is absolute the host's way.
			abs, _ := json.Marshal(filepath.Join("/ws", "a.go"))
			updated := strings.ReplaceAll(tc.updated, `"/ws/a.go"`, string(abs))
			got, err := ReasonixToolInput(tc.tool, json.RawMessage(tc.args), "/ws", json.RawMessage(updated))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %s, %v; want error %q", got, err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %s, %v; want %s", got, err, tc.want)
			}
		})
	}
}

// TestPreToolUseClaudeOutputFields: the PreToolUse output fields of
// Claude Code's contract, legacy ones included.
func TestPreToolUseClaudeOutputFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stdout string
		block        string
		updated      string
		halt         bool
		notice       string
	}{
		{"legacy decision block", `{"decision":"block","reason":"legacy no"}`, "legacy no", "", false, "block: legacy no"},
		{"legacy decision approve changes nothing", `{"decision":"approve","reason":"fine"}`, "", "", false, ""},
		{"permissionDecision allow changes nothing", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`, "", "", false, ""},
		{"updatedInput", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}`, "", `{"command":"ls -a"}`, false, ""},
		{"deny wins over updatedInput", `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no","updatedInput":{"command":"ls -a"}}}`, "no", "", false, "block: no"},
		{"continue false", `{"continue":false,"stopReason":"enough for today"}`, "the turn was stopped by a PreToolUse hook: enough for today", "", true, "stopped the turn (continue: false): enough for today"},
		{"systemMessage", `{"systemMessage":"careful with ls"}`, "", "", false, " — careful with ls"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pkg := claudePackage(t, "c", map[string]any{"PreToolUse": []any{map[string]any{
				"matcher": "Bash", "hooks": []any{claudeHelper(map[string]string{"HOOK_STDOUT": tc.stdout}, []string{})},
			}}}, nil)
			r := load(t, Sources{Packages: []Package{pkg}})
			v := r.PreToolUse(context.Background(), bashCall("ls"))
			if v.Block != tc.block || string(v.UpdatedInput) != tc.updated || v.Halt != tc.halt {
				t.Fatalf("verdict %+v", v)
			}
			joined := strings.Join(v.Notices, "\n")
			if (tc.notice == "") != (joined == "") || !strings.Contains(joined, tc.notice) {
				t.Fatalf("notices %q, want %q", v.Notices, tc.notice)
			}
		})
	}
}
