package hookrun

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

func TestExpandPluginRootSupportsClaudeReasonixAndCmdAliases(t *testing.T) {
	t.Parallel()
	const root = "/r"
	tests := []struct{ in, want string }{
		{"${CLAUDE_PLUGIN_ROOT}/a", "/r/a"},
		{"$CLAUDE_PLUGIN_ROOT/a", "/r/a"},
		{"%CLAUDE_PLUGIN_ROOT%\\a", "/r\\a"},
		{"${REASONIX_PLUGIN_ROOT}/a", "/r/a"},
		{"$REASONIX_PLUGIN_ROOT/a $REASONIX_PLUGIN_ROOT", "/r/a /r"},
		{"%REASONIX_PLUGIN_ROOT%", "/r"},
		{"$CLAUDE_PLUGIN_ROOTX", "$CLAUDE_PLUGIN_ROOTX"},
		{"$REASONIX_PLUGIN_ROOT_2", "$REASONIX_PLUGIN_ROOT_2"},
		{"${CLAUDE_PLUGIN_ROOT:-x}", "${CLAUDE_PLUGIN_ROOT:-x}"},
		{"$HOME %PATH% ${OTHER}", "$HOME %PATH% ${OTHER}"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := expandPluginRoot(tc.in, root); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExpandPluginRootDoesNotReprocessResolvedRoot(t *testing.T) {
	t.Parallel()
	root := "/p/$CLAUDE_PLUGIN_ROOT/%REASONIX_PLUGIN_ROOT%"
	if got := expandPluginRoot("${CLAUDE_PLUGIN_ROOT}/x", root); got != root+"/x" {
		t.Fatalf("got %q", got)
	}
}

func TestLoadIncludesPluginSessionStartHook(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "codexy", map[string]string{
		".codex-plugin/plugin.json": `{"name":"codexy"}`,
		"hooks/session-start-codex": "+x:#!/bin/sh\necho hi\n",
	})
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"settings.json": `{"hooks":{"SessionStart":[{"command":"echo global"}]}}`})
	ws := t.TempDir()
	r := load(t, Sources{Packages: []Package{pkg}, Workspace: ws, GlobalSettings: []string{filepath.Join(dir, "settings.json")}})
	l := r.Listing()
	if len(l) != 2 || l[0].Scope != ScopePlugin || l[1].Scope != ScopeGlobal {
		t.Fatalf("listing %+v", l)
	}
	h := l[0]
	if h.Event != SessionStart || h.Form != FormLegacy || h.Command != filepath.Join(pkg.Root, "hooks", "session-start-codex") || h.Dir != "" {
		t.Fatalf("codex hook %+v", h)
	}
	if h.Env[envPluginName] != "codexy" || h.Env[envWorkspaceRoot] != ws {
		t.Fatalf("env %v", h.Env)
	}
	if l[1].Form != FormLegacy || l[1].Command != "echo global" || l[1].Dir != "" {
		t.Fatalf("global hook %+v", l[1])
	}
}

func TestLoadIncludesPluginClaudeCompatibilityHooks(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "legal", map[string]string{
		".claude-plugin/plugin.json": `{"name":"legal"}`,
		"CLAUDE.md":                  "Be careful.",
		".claude/settings.json":      `{"hooks":{"PreToolUse":[{"matcher":"bash","hooks":[{"type":"command","command":"echo hi","timeout":2}]}]}}`,
	})
	r := load(t, Sources{Packages: []Package{pkg}})
	l := r.Listing()
	if len(l) != 2 {
		t.Fatalf("listing %+v", l)
	}
	pre, ss := l[0], l[1]
	if pre.Event != PreToolUse || pre.Match != "bash" || pre.Timeout != 2*time.Second || pre.Dir != "" || !pre.Claude || pre.Form != FormShell || pre.Command != "echo hi" {
		t.Fatalf("PreToolUse %+v", pre)
	}
	if ss.Event != SessionStart || ss.Form != FormContext || ss.ContextFile != filepath.Join(pkg.Root, "CLAUDE.md") {
		t.Fatalf("SessionStart %+v", ss)
	}
}

func TestLoadPluginHooksPreservesExecutionContract(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {
		{"command": "bin/check", "args": []string{}, "shellCommand": "ignored"},
		{"command": "${REASONIX_PLUGIN_ROOT}/x.sh && echo done", "shell": "bash"},
		{"command": "hooks/legacy.sh"},
		{"command": "${CLAUDE_PLUGIN_ROOT}/bin/t", "args": []string{"$CLAUDE_PLUGIN_ROOT/in", "%REASONIX_PLUGIN_ROOT%"}, "payloadFormat": "claude"},
		{"command": "node", "args": []string{"x.js"}, "payloadFormat": "claude"},
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	root := pkg.Root
	type got struct {
		Form    Form
		Command string
		Args    []string
	}
	var all []got
	for _, h := range r.Listing() {
		all = append(all, got{h.Form, h.Command, h.Args})
	}
	want := []got{
		{FormExec, filepath.Join(root, "bin", "check"), []string{}},
		{FormShell, root + "/x.sh && echo done", nil},
		{FormLegacy, filepath.Join(root, "hooks", "legacy.sh"), nil},
		{FormExec, root + "/bin/t", []string{root + "/in", root}},
		{FormExec, "node", []string{"x.js"}},
	}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("\n got %+v\nwant %+v", all, want)
	}
}

func TestParseClaudeHooksPreservesExecAndShellForms(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{
	  "PreToolUse": [{"matcher": "Write|Edit", "hooks": [
	    {"type": "command", "command": "node", "args": ["g.js", ""], "timeout": 1.5, "async": true, "env": {"A": "b"}},
	    {"type": "command", "command": "echo x", "shell": "powershell"},
	    {"type": "prompt", "prompt": "judge"},
	    {"type": "command", "command": "x", "shell": "zsh"},
	    {"type": "command", "command": "y", "if": "Bash(git *)"}
	  ]}],
	  "Stop": [{"match": "ignored", "hooks": [{"type": "command", "command": "s"}]}],
	  "TeammateIdle": [{"hooks": [{"type": "command", "command": "t"}]}]
	}`)
	got, warns := ParseClaudeHooks(raw)
	want := map[string][]manifest.Hook{
		"PreToolUse": {
			{Match: "Write|Edit", Command: "node", Args: []string{"g.js", ""}, Timeout: 1500, Async: true, Env: map[string]string{"A": "b"}, PayloadFormat: "claude"},
			{Match: "Write|Edit", Command: "echo x", Shell: "powershell", PayloadFormat: "claude"},
			{Match: "Write|Edit", Command: "y", PayloadFormat: "claude"},
		},
		"Stop": {{Match: "ignored", Command: "s", PayloadFormat: "claude"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("\n got %+v\nwant %+v", got, want)
	}
	wantWarns := []string{
		`hooks.PreToolUse[0].hooks[2]: hook type "prompt" is not supported (only "command"); skipped`,
		`hooks.PreToolUse[0].hooks[3]: unsupported Claude hook shell "zsh"; skipped`,
		`hooks.PreToolUse[0].hooks[4]: "if" is not supported; the hook runs unconditionally`,
		`unsupported Claude hook event "TeammateIdle"`,
	}
	if !reflect.DeepEqual(warns, wantWarns) {
		t.Fatalf("warnings\n got %q\nwant %q", warns, wantWarns)
	}
}

func TestClaudeDuplicatesCollapseOnlyWhenIdentical(t *testing.T) {
	t.Parallel()
	block := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]}]}}`
	pkg := loadPackage(t, "c", map[string]string{
		".claude-plugin/plugin.json": `{"name":"c"}`,
		"hooks/hooks.json":           block,
		".claude/settings.json":      `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"},{"type":"command","command":"a","timeout":3}]}]}}`,
	})
	r := load(t, Sources{Packages: []Package{pkg}})
	if l := r.Listing(); len(l) != 2 || l[1].Timeout != 3*time.Second {
		t.Fatalf("listing %+v", l)
	}
}

func TestClaudeHooksFileMayNotEscapeRoot(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "c", map[string]string{".claude-plugin/plugin.json": `{"name":"c","hooks":"../outside.json"}`})
	r, warns := Load(Sources{Packages: []Package{pkg}, Workspace: t.TempDir()})
	defer r.Close()
	if len(warns) != 1 || !strings.Contains(warns[0].String(), `c: ../outside.json: hooks file "../outside.json" must be relative and stay inside the plugin root`) {
		t.Fatalf("warnings %v", warns)
	}
}

func TestLegacyManifestInlineAndReferencedHooks(t *testing.T) {
	t.Parallel()
	pkg := loadPackage(t, "old", map[string]string{
		"reasonix-plugin.json": `{"name":"old","hooks":{"Stop":[{"command":"hooks/stop.sh","timeout":1000}]}}`,
	})
	c := loadPackage(t, "cc", map[string]string{
		".claude-plugin/plugin.json": `{"name":"cc","hooks":"./extra/hooks.json"}`,
		"extra/hooks.json":           `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"b"}]}]}}`,
	})
	r := load(t, Sources{Packages: []Package{pkg, c}})
	l := r.Listing()
	if len(l) != 2 || l[0].Plugin != "cc" || !l[0].Claude || l[1].Form != FormLegacy || l[1].Timeout != time.Second || l[1].Command != filepath.Join(pkg.Root, "hooks", "stop.sh") {
		t.Fatalf("listing %+v", l)
	}
}

func TestMatchesToolTranslatesClaudeToolNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		match  string
		claude bool
		tool   string
		args   string
		want   bool
	}{
		{"", false, "anything", "", true},
		{"*", true, "mcp__s__t", "", true},
		{"bash", false, "bash", "", true},
		{"bash", false, "bash_output", "", false},
		{"Bash", false, "bash", "", false},
		{"Bash", true, "bash", "", true},
		{"Bash", true, "run_command", "", true},
		{"Task", true, "explore", "", true},
		{"Agent", true, "parallel_tasks", "", true},
		{"BashOutput", true, "wait", "", true},
		{"KillShell", true, "kill_shell", "", true},
		{"Write", true, "apply_edit", `{"path":"a","content":"x"}`, true},
		{"Edit", true, "apply_edit", `{"path":"a","edits":[{"oldText":"a","newText":"b"}]}`, true},
		{"MultiEdit", true, "apply_edit", `{"path":"a","edits":[{},{}]}`, true},
		{"Read", true, "read_file", "", true},
		{"mcp__.*", true, "mcp__srv__tool", "", true},
		{"read_file", true, "read_file", "", false},
		{"(", false, "(", "", false},
	}
	for _, tc := range tests {
		h := &Hook{Match: tc.match, Claude: tc.claude}
		h.compileMatch()
		for _, ev := range []Event{PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest} {
			if got := h.matchesTool(ev, tc.tool, json.RawMessage(tc.args)); got != tc.want {
				t.Errorf("%s %q claude=%v tool %s: got %v", ev, tc.match, tc.claude, tc.tool, got)
			}
		}
		if !h.matchesTool(Stop, "nothing", nil) {
			t.Errorf("%q: Stop must ignore the matcher", tc.match)
		}
	}
}

func TestClaudeFacingToolInputResolvesAbsolutePaths(t *testing.T) {
	t.Parallel()
	cwd := filepath.Join(string(filepath.Separator)+"ws", "proj")
	abs := func(p string) string { return filepath.Join(cwd, p) }
	absOther := filepath.Join(string(filepath.Separator)+"etc", "x")
	tests := []struct {
		tool, in string
		want     map[string]any
	}{
		{"read_file", `{"path":"a.go","offset":3}`, map[string]any{"file_path": abs("a.go"), "offset": 3.0}},
		{"write_file", `{"path":"` + filepath.ToSlash(absOther) + `","content":"c"}`, map[string]any{"file_path": filepath.ToSlash(absOther), "content": "c"}},
		{"notebook_edit", `{"path":"n.ipynb","source":"s"}`, map[string]any{"notebook_path": abs("n.ipynb"), "source": "s", "new_source": "s"}},
		{"notebook_edit", `{"path":"n.ipynb"}`, map[string]any{"notebook_path": abs("n.ipynb"), "new_source": ""}},
		{"ask", `{"questions":[{"question":"q","options":[{"label":"a"}]}]}`, map[string]any{"questions": []any{map[string]any{"question": "q", "multiSelect": false, "options": []any{map[string]any{"label": "a", "description": ""}}}}}},
		{"run_skill", `{"name":"plan","arguments":"x"}`, map[string]any{"skill": "plan", "args": "x"}},
		{"todo_write", `{"todos":[{"content":"c"}]}`, map[string]any{"todos": []any{map[string]any{"content": "c", "activeForm": "c"}}}},
		{"bash_output", `{"job_id":"j"}`, map[string]any{"task_id": "j", "block": false, "timeout": 0.0}},
		{"wait", `{"job_ids":["j"],"timeout_seconds":2}`, map[string]any{"job_ids": []any{"j"}, "task_id": "j", "block": true, "timeout": 2000.0, "timeout_seconds": 2.0}},
		{"wait", `{"job_ids":["j","k"]}`, map[string]any{"job_ids": []any{"j", "k"}, "block": true}},
		{"kill_shell", `{"job_id":"j"}`, map[string]any{"task_id": "j"}},
		{"task", `{"prompt":"p"}`, map[string]any{"prompt": "p", "description": "Run delegated subagent task"}},
		{"review", `{"task":"t","description":"mine"}`, map[string]any{"prompt": "t", "description": "mine"}},
		{"parallel_tasks", `{"tasks":[{"prompt":"a"},{"task":"b"}]}`, map[string]any{"tasks": []any{map[string]any{"prompt": "a"}, map[string]any{"task": "b"}}, "prompt": "a\n\nb", "description": "Run parallel subagent tasks"}},
		{"run_command", `{"command":["git","commit","-m","a b"],"timeoutSeconds":5}`, map[string]any{"command": "git commit -m 'a b'", "timeout": 5000.0}},
		{"apply_edit", `{"path":"a","edits":[{"oldText":"x","newText":"y"}]}`, map[string]any{"file_path": abs("a"), "old_string": "x", "new_string": "y"}},
		{"search_text", `{"pattern":"p","include":"*.go","ignoreCase":true}`, map[string]any{"pattern": "p", "glob": "*.go", "-i": true}},
		{"mcp__s__t", `{"path":"a"}`, map[string]any{"path": "a"}},
	}
	for _, tc := range tests {
		var got map[string]any
		if err := json.Unmarshal(claudeToolInput(tc.tool, json.RawMessage(tc.in), cwd), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s\n got %v\nwant %v", tc.tool, tc.in, got, tc.want)
		}
	}
}

func TestWrapContextLimitsAndEscapes(t *testing.T) {
	t.Parallel()
	if got := WrapContext(SessionStart, []string{" ", ""}, "text"); got != "text" {
		t.Fatalf("empty items: %q", got)
	}
	got := WrapContext(SessionStart, []string{"a</hook-context>b"}, "")
	if got != "<hook-context event=\"SessionStart\">\na<\\/hook-context>b\n</hook-context>" {
		t.Fatalf("escape: %q", got)
	}
	big := strings.Repeat("é", 12000)
	got = WrapContext(SessionStart, []string{big, big, big, "tail"}, "u")
	if n := strings.Count(got, "é"); n != maxContextTotal {
		t.Fatalf("kept %d runes", n)
	}
	if strings.Count(got, "\n[truncated]") != 2 || !strings.Contains(got, "[truncated: omitted 2 additional hook context item(s)]") || !strings.HasSuffix(got, "</hook-context>\n\nu") {
		t.Fatalf("markers wrong: ...%q", got[len(got)-200:])
	}
}

func TestDecodeHookOutputPreservesTruncatedUTF8Prefix(t *testing.T) {
	t.Parallel()
	euro := "€" // 3 bytes
	tests := []struct {
		in        []byte
		truncated bool
		want      string
	}{
		{[]byte("  ok \n"), false, "ok"},
		{[]byte("a" + euro[:2]), true, "a"},
		{[]byte("a" + euro[:2]), false, "a\uFFFD"},
		{[]byte("a" + euro), true, "a" + euro},
		{[]byte{'a', 0xff, 'b'}, false, "a\uFFFDb"},
	}
	for _, tc := range tests {
		if got := decodeOutput(tc.in, tc.truncated); got != tc.want {
			t.Errorf("%q truncated=%v: got %q want %q", tc.in, tc.truncated, got, tc.want)
		}
	}
}

func TestMergeEnvLaterWins(t *testing.T) {
	t.Parallel()
	got := mergeEnv("windows", []string{"Path=a", "=C:=C:\\x", "=D:=D:\\y", "KEEP=1"}, map[string]string{"PATH": "b", "Z": "z"})
	want := []string{"=C:=C:\\x", "=D:=D:\\y", "KEEP=1", "PATH=b", "Z=z"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("windows: %q", got)
	}
	got = mergeEnv("linux", []string{"Path=a", "PATH=x"}, map[string]string{"PATH": "b"})
	if !reflect.DeepEqual(got, []string{"Path=a", "PATH=b"}) {
		t.Fatalf("linux: %q", got)
	}
}

func TestHostPlatformIsThisOS(t *testing.T) {
	t.Parallel()
	if hostPlatform().goos != runtime.GOOS {
		t.Fatal("host platform")
	}
}
