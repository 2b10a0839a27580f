package hookrun

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDecideOutcome(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name               string
		blocking, spawnErr bool
		timedOut           bool
		exit               int
		want               Decision
	}{
		{"spawn error blocking", true, true, false, -1, Error},
		{"spawn error observer", false, true, false, -1, Error},
		{"timeout blocking", true, false, true, -1, Block},
		{"timeout observer", false, false, true, -1, Warn},
		{"exit 0 blocking", true, false, false, 0, Pass},
		{"exit 0 observer", false, false, false, 0, Pass},
		{"exit 2 blocking", true, false, false, 2, Block},
		{"exit 2 observer", false, false, false, 2, Warn},
		{"exit 1 blocking", true, false, false, 1, Warn},
		{"exit 7 observer", false, false, false, 7, Warn},
	}
	for _, tc := range tests {
		if got := decideOutcome(tc.blocking, tc.spawnErr, tc.timedOut, tc.exit); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

func claudePackage(t *testing.T, name string, hooks map[string]any, files map[string]string) Package {
	t.Helper()
	all := map[string]string{".claude-plugin/plugin.json": `{"name":"` + name + `"}`}
	if hooks != nil {
		b, _ := json.Marshal(map[string]any{"hooks": hooks})
		all["hooks/hooks.json"] = string(b)
	}
	for k, v := range files {
		all[k] = v
	}
	return loadPackage(t, name, all)
}

// claudeItem is one Claude hooks.json item running the helper; args
// present selects the exec form.
func claudeHelper(env map[string]string, args []string) map[string]any {
	e := map[string]string{"HOOKRUN_HELPER": "1"}
	for k, v := range env {
		e[k] = v
	}
	return map[string]any{"type": "command", "command": self(), "args": args, "env": e, "timeout": 120}
}

func TestRunStopsAtFirstBlock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	third := filepath.Join(dir, "third")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {
		helperHook(nil, nil),
		helperHook(map[string]string{"HOOK_EXIT": "2", "HOOK_STDERR": "no rm today"}, nil),
		helperHook(map[string]string{"HOOK_SAVE": third}, nil),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	rep := r.Run(context.Background(), PreToolUse, Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"rm -rf /"}`)})
	if !rep.Blocked || rep.Reason != "no rm today" {
		t.Fatalf("blocked=%v reason=%q", rep.Blocked, rep.Reason)
	}
	if got := decisions(rep); !reflect.DeepEqual(got, []Decision{Pass, Block}) {
		t.Fatalf("decisions %v", got)
	}
	if _, err := os.Stat(third); err == nil {
		t.Fatal("the hook after the block ran")
	}
	block, notices := preToolUse(r, context.Background(), Payload{ToolName: "bash"})
	if block != "no rm today" || len(notices) != 1 || !strings.Contains(notices[0], "hook [plugin/PreToolUse] ") || !strings.HasSuffix(notices[0], " — block: no rm today") {
		t.Fatalf("block %q notices %q", block, notices)
	}
}

func TestRunHonorsClaudeJSONDenyOnExitZero(t *testing.T) {
	t.Parallel()
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"use the safe wrapper"}}`
	pkg := claudePackage(t, "c", map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "Bash", "hooks": []any{claudeHelper(map[string]string{"HOOK_STDOUT": deny}, []string{})},
	}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	block, _ := preToolUse(r, context.Background(), Payload{ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls"}`)})
	if block != "use the safe wrapper" {
		t.Fatalf("block %q", block)
	}
	// A tool the matcher does not name is not touched.
	if block, _ := preToolUse(r, context.Background(), Payload{ToolName: "read_file"}); block != "" {
		t.Fatalf("read_file blocked: %q", block)
	}
}

func TestRunNativeHookIgnoresPermissionDecisionField(t *testing.T) {
	t.Parallel()
	deny := `{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"x"}}`
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {helperHook(map[string]string{"HOOK_STDOUT": deny}, nil)}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	if block, notices := preToolUse(r, context.Background(), Payload{ToolName: "bash"}); block != "" || len(notices) != 0 {
		t.Fatalf("native JSON decided: %q %v", block, notices)
	}
}

func TestRunnerPermissionRequestClaudeDecisions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		claude bool
		env    map[string]string
		want   Verdict
	}{
		{"TestRunClaudePermissionRequestExit2Blocks", true, map[string]string{"HOOK_EXIT": "2", "HOOK_STDERR": "no"}, Deny},
		{"json deny", true, map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"nope"}}}`}, Deny},
		{"TestRunClaudePermissionRequestJSONAllow", true, map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`}, Allow},
		{"plain exit 0", true, nil, Ask},
		{"native exit 2 only observes", false, map[string]string{"HOOK_EXIT": "2"}, Ask},
		{"native allow JSON ignored", false, map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"decision":{"behavior":"allow"}}}`}, Ask},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var pkg Package
			if tc.claude {
				pkg = claudePackage(t, "c", map[string]any{"PermissionRequest": []any{map[string]any{"hooks": []any{claudeHelper(tc.env, []string{})}}}}, nil)
			} else {
				pkg = v1Package(t, "p", map[string][]map[string]any{"PermissionRequest": {helperHook(tc.env, nil)}}, nil)
			}
			r := load(t, Sources{Packages: []Package{pkg}})
			v, _, _ := r.PermissionRequest(context.Background(), Payload{ToolName: "bash", Subject: "run ls"})
			if v != tc.want {
				t.Fatalf("verdict %v, want %v", v, tc.want)
			}
		})
	}
}

func TestRunHonorsUserPromptSubmitTopLevelDeny(t *testing.T) {
	t.Parallel()
	pkg := claudePackage(t, "c", map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{
		claudeHelper(map[string]string{"HOOK_STDOUT": `{"decision":"block","reason":"no secrets in prompts"}`}, []string{}),
	}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	blocked, ctxs, notices := r.UserPromptSubmit(context.Background(), Payload{Prompt: "hi", Turn: 1})
	if !blocked || ctxs != nil || len(notices) != 1 || !strings.HasSuffix(notices[0], "block: no secrets in prompts") {
		t.Fatalf("blocked=%v ctxs=%q notices=%q", blocked, ctxs, notices)
	}
}

func TestUserPromptSubmitClaudeContext(t *testing.T) {
	t.Parallel()
	pkg := claudePackage(t, "c", map[string]any{"UserPromptSubmit": []any{map[string]any{"hooks": []any{
		claudeHelper(map[string]string{"HOOK_STDOUT": "today is Tuesday"}, []string{}),
		claudeHelper(map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch main"}}`}, []string{}),
	}}}}, nil)
	native := v1Package(t, "n", map[string][]map[string]any{"UserPromptSubmit": {helperHook(map[string]string{"HOOK_STDOUT": "native chatter"}, nil)}}, nil)
	r := load(t, Sources{Packages: []Package{pkg, native}})
	blocked, ctxs, _ := r.UserPromptSubmit(context.Background(), Payload{Prompt: "hi"})
	if blocked || !reflect.DeepEqual(ctxs, []string{"today is Tuesday", "branch main"}) {
		t.Fatalf("blocked=%v ctxs=%q", blocked, ctxs)
	}
}

func TestRunClaudePayloadAndDirectArgs(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	pkg := claudePackage(t, "c", map[string]any{"PostToolUseFailure": []any{map[string]any{"matcher": "Bash", "hooks": []any{
		claudeHelper(map[string]string{"HOOK_SAVE": save}, []string{"--flag", "two words"}),
	}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	ws := t.TempDir()
	r.Observe(context.Background(), PostToolUseFailure, Payload{SessionID: "s1", Cwd: ws, ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"git push"}`), ToolResult: "remote: denied", Error: "exit 1"})
	rec := readRecord(t, save)
	if !reflect.DeepEqual(rec.Args, []string{"--flag", "two words"}) {
		t.Fatalf("args %q", rec.Args)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(rec.Stdin), &got); err != nil || !strings.HasSuffix(rec.Stdin, "}\n") {
		t.Fatalf("stdin %q: %v", rec.Stdin, err)
	}
	want := map[string]any{
		"hook_event_name": "PostToolUseFailure", "session_id": "s1", "cwd": ws,
		"transcript_path": "", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git push"}, "tool_use_id": "",
		"error": "exit 1", "is_interrupt": false,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("payload\n got %v\nwant %v", got, want)
	}
}

func TestNativePayloadOmitsEmptyMembers(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {helperHook(map[string]string{"HOOK_SAVE": save}, nil)}}, nil)
	ws := t.TempDir()
	r := load(t, Sources{Packages: []Package{pkg}, Workspace: ws})
	preToolUse(r, context.Background(), Payload{SessionID: "s", ToolName: "bash", ToolArgs: json.RawMessage(`{"command":"ls"}`)})
	wsJSON, _ := json.Marshal(ws)
	want := `{"event":"PreToolUse","sessionId":"s","cwd":` + string(wsJSON) + `,"toolName":"bash","toolArgs":{"command":"ls"}}` + "\n"
	if got := readRecord(t, save).Stdin; got != want {
		t.Fatalf("stdin\n got %s\nwant %s", got, want)
	}
}

func TestRunClaudeWriteFileGuardFiresAndSeesFilePath(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	pkg := claudePackage(t, "c", map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Write|Edit", "hooks": []any{
		claudeHelper(map[string]string{"HOOK_SAVE": save, "HOOK_EXIT": "2", "HOOK_STDERR": "protected"}, []string{}),
	}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	ws := t.TempDir()
	block, _ := preToolUse(r, context.Background(), Payload{Cwd: ws, ToolName: "write_file", ToolArgs: json.RawMessage(`{"path":"src/a.go","content":"x"}`)})
	if block != "protected" {
		t.Fatalf("block %q", block)
	}
	var p struct {
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
	}
	_ = json.Unmarshal([]byte(readRecord(t, save).Stdin), &p)
	if p.ToolName != "Write" || p.ToolInput["file_path"] != filepath.Join(ws, "src/a.go") || p.ToolInput["path"] != nil {
		t.Fatalf("payload %+v", p)
	}
}

func TestRunClaudeAgentGuardFiresAndSeesRequiredFields(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	pkg := claudePackage(t, "c", map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Task", "hooks": []any{
		claudeHelper(map[string]string{"HOOK_SAVE": save}, []string{}),
	}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	preToolUse(r, context.Background(), Payload{ToolName: "explore", ToolArgs: json.RawMessage(`{"task":"find the parser"}`)})
	var p struct {
		ToolName  string         `json:"tool_name"`
		ToolInput map[string]any `json:"tool_input"`
	}
	_ = json.Unmarshal([]byte(readRecord(t, save).Stdin), &p)
	if p.ToolName != "Agent" || p.ToolInput["prompt"] != "find the parser" || p.ToolInput["description"] != "Explore the codebase" {
		t.Fatalf("payload %+v", p)
	}
}

func TestExecFormPreservesLiteralArgumentsEndToEnd(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	args := []string{"", "$HOME", "%PATH%", "a && b | c > out", `"quoted" 'single'`, "line1\nline2", "emoji 🎉", `back\slash\`, "${CLAUDE_PLUGIN_ROOT:-x}"}
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {helperHook(map[string]string{"HOOK_SAVE": save}, map[string]any{"args": args})}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	if n := r.Observe(context.Background(), Stop, Payload{}); len(n) != 0 {
		t.Fatal(n)
	}
	if got := readRecord(t, save).Args; !reflect.DeepEqual(got, args) {
		t.Fatalf("args\n got %q\nwant %q", got, args)
	}
}

func TestRunAsyncHookReturnsBeforeSpawnerFinishes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release, save := filepath.Join(dir, "release"), filepath.Join(dir, "rec")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PostToolUse": {
		helperHook(map[string]string{"HOOK_WAITFILE": release, "HOOK_SAVE": save, "HOOK_EXIT": "1"}, map[string]any{"async": true}),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	ctx, cancel := context.WithCancel(context.Background())
	rep := r.Run(ctx, PostToolUse, Payload{ToolName: "bash"})
	// The hook is still waiting for release: Run did not wait for it.
	if len(rep.Results) != 1 || !rep.Results[0].Async || rep.Results[0].Decision != Pass || len(rep.Notices()) != 0 {
		t.Fatalf("report %+v", rep)
	}
	cancel() // async hooks outlive the caller's cancellation
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(save); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestDefaultSpawnerOutputCap(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {helperHook(map[string]string{"HOOK_BIGOUT": "300000", "HOOK_EXIT": "3"}, nil)}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	rep := r.Run(context.Background(), Stop, Payload{})
	res := rep.Results[0]
	if !res.Truncated || len(res.Stdout) != maxStream || res.ExitCode != 3 || res.Decision != Warn {
		t.Fatalf("truncated=%v len=%d exit=%d decision=%s", res.Truncated, len(res.Stdout), res.ExitCode, res.Decision)
	}
	if n := rep.Notices(); len(n) != 1 || !strings.Contains(n[0], "— warn (output truncated): xxx") {
		t.Fatalf("notice %.120q", n)
	}
}

func TestRunnerSessionStartReturnsAdditionalContexts(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"SessionStart": {
		helperHook(map[string]string{"HOOK_STDOUT": "plain context"}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"json context"}}`}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"wrong event"}}`}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": `{not json`}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": "failed context", "HOOK_EXIT": "1"}, nil),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	ctxs, notices := r.SessionStart(context.Background(), Payload{})
	if !reflect.DeepEqual(ctxs, []string{"plain context", "json context"}) {
		t.Fatalf("contexts %q", ctxs)
	}
	want := []string{`hook output event "Stop" does not match current event "SessionStart"`, "hook SessionStart returned invalid JSON stdout: ", "— warn: failed context"}
	if len(notices) != 3 {
		t.Fatalf("notices %q", notices)
	}
	for i, w := range want {
		if !strings.Contains(notices[i], w) {
			t.Errorf("notice %d %q lacks %q", i, notices[i], w)
		}
	}
	got := WrapContext(SessionStart, ctxs, "hello")
	if got != "<hook-context event=\"SessionStart\">\nplain context\n\n---\njson context\n</hook-context>\n\nhello" {
		t.Fatalf("wrapped %q", got)
	}
}

func TestRunnerSessionStartReadsContextFile(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"SessionStart": {
		{"contextFile": "ctx/guide.md"},
		{"contextFile": "ctx/missing.md"},
	}}, map[string]string{"ctx/guide.md": "  Use tabs.\n"})
	r, _ := Load(Sources{Packages: []Package{pkg}, Workspace: t.TempDir()})
	defer r.Close()
	ctxs, notices := r.SessionStart(context.Background(), Payload{})
	if !reflect.DeepEqual(ctxs, []string{"Use tabs."}) {
		t.Fatalf("contexts %q", ctxs)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "context:"+filepath.Join(pkg.Root, "ctx", "missing.md")) || !strings.Contains(notices[0], "— error: context file: ") {
		t.Fatalf("notices %q", notices)
	}
}

func TestRunnerPostToolUseFailurePreservesNativeObserver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nativeSave, claudeSave := filepath.Join(dir, "native"), filepath.Join(dir, "claude")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PostToolUse": {helperHook(map[string]string{"HOOK_SAVE": nativeSave}, nil)}}, nil)
	cl := claudePackage(t, "c", map[string]any{"PostToolUse": []any{map[string]any{"hooks": []any{claudeHelper(map[string]string{"HOOK_SAVE": claudeSave}, []string{})}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg, cl}})
	rep := r.Run(context.Background(), PostToolUseFailure, Payload{ToolName: "bash", Error: "exit 1", IsInterrupt: true})
	if len(rep.Results) != 1 || rep.Results[0].Event != PostToolUse {
		t.Fatalf("results %+v", rep.Results)
	}
	var p map[string]any
	_ = json.Unmarshal([]byte(readRecord(t, nativeSave).Stdin), &p)
	if p["event"] != "PostToolUse" || p["error"] != "exit 1" || p["isInterrupt"] != true {
		t.Fatalf("native payload %v", p)
	}
	if _, err := os.Stat(claudeSave); err == nil {
		t.Fatal("a Claude PostToolUse hook ran for a failure")
	}
}

func TestRunnerStopResultPreservesNativeStopObserver(t *testing.T) {
	t.Parallel()
	save := filepath.Join(t.TempDir(), "rec")
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {helperHook(map[string]string{"HOOK_SAVE": save}, nil)}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	r.Observe(context.Background(), StopFailure, Payload{Error: "provider down", Turn: 3})
	var p map[string]any
	_ = json.Unmarshal([]byte(readRecord(t, save).Stdin), &p)
	if p["event"] != "Stop" || p["error"] != "provider down" || p["turn"] != 3.0 {
		t.Fatalf("payload %v", p)
	}
}

func TestRunnerPostLLMCallReplacesReasoning(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"PostLLMCall": {
		helperHook(map[string]string{"HOOK_STDOUT": "failing", "HOOK_EXIT": "1"}, nil),
		helperHook(nil, nil),
		helperHook(map[string]string{"HOOK_STDOUT": "short version"}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": "later"}, nil),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	got, notices := r.PostLLMCall(context.Background(), Payload{Reasoning: "long thoughts", Turn: 1})
	if got != "short version" || len(notices) != 1 {
		t.Fatalf("reasoning %q notices %q", got, notices)
	}
	empty := load(t, Sources{})
	if got, _ := empty.PostLLMCall(context.Background(), Payload{Reasoning: "kept"}); got != "kept" {
		t.Fatalf("reasoning %q", got)
	}
}

func TestPreCompactJoinsGuidance(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreCompact": {
		helperHook(map[string]string{"HOOK_STDOUT": "keep the plan"}, nil),
		helperHook(map[string]string{"HOOK_STDOUT": "keep todos", "HOOK_EXIT": "1"}, nil),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	if g, _ := r.PreCompact(context.Background(), Payload{Trigger: "manual"}); g != "keep the plan\nkeep todos" {
		t.Fatalf("guidance %q", g)
	}
}

func TestHookTimeoutBlocksAndObserverWarns(t *testing.T) {
	t.Parallel()
	block := map[string]string{"HOOK_BLOCK": "1"}
	pkg := v1Package(t, "p", map[string][]map[string]any{
		"PreToolUse": {helperHook(block, map[string]any{"timeout": 50})},
		"Stop":       {helperHook(block, map[string]any{"timeout": 50})},
	}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	if b, n := preToolUse(r, context.Background(), Payload{ToolName: "x"}); b != "blocked by a PreToolUse hook" || len(n) != 1 || !strings.Contains(n[0], "— block (timed out after 50ms)") {
		t.Fatalf("block %q notices %q", b, n)
	}
	rep := r.Run(context.Background(), Stop, Payload{})
	if !rep.Results[0].TimedOut || rep.Results[0].Decision != Warn {
		t.Fatalf("stop %+v", rep.Results[0])
	}
}

func TestCancelledHookIsErrorAndNeverBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {helperHook(map[string]string{"HOOK_PIDFILE": pidFile, "HOOK_BLOCK": "1"}, map[string]any{"timeout": 600000})}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFile(t, pidFile)
		cancel()
	}()
	rep := r.Run(ctx, PreToolUse, Payload{ToolName: "x"})
	if rep.Blocked || rep.Results[0].Decision != Error || !strings.HasPrefix(rep.Results[0].Err, "cancelled") {
		t.Fatalf("report %+v", rep)
	}
}

func TestSpawnErrorIsErrorNotBlock(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {{"command": "bin/missing", "args": []string{}}}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	rep := r.Run(context.Background(), PreToolUse, Payload{ToolName: "x"})
	if rep.Blocked || rep.Results[0].Decision != Error || !strings.Contains(rep.Results[0].Err, filepath.Join(pkg.Root, "bin", "missing")) {
		t.Fatalf("report %+v", rep.Results)
	}
}

func TestHookOutputIsRedacted(t *testing.T) {
	t.Parallel()
	secret := "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	pkg := v1Package(t, "p", map[string][]map[string]any{"PreToolUse": {
		helperHook(map[string]string{"HOOK_EXIT": "2", "HOOK_STDERR": "token " + secret + " leaked; own=" + "s3cr3t-value-xyz", "HOOK_OWN": "s3cr3t-value-xyz", "MY_API_KEY": "s3cr3t-value-xyz"}, nil),
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	block, notices := preToolUse(r, context.Background(), Payload{ToolName: "x"})
	for _, s := range append(notices, block) {
		if strings.Contains(s, secret) || strings.Contains(s, "s3cr3t-value-xyz") {
			t.Fatalf("secret shown: %q", s)
		}
	}
	if !strings.Contains(block, "leaked") {
		t.Fatalf("block %q", block)
	}
}

func TestLoadPluginEnvironmentAndOrder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ws, home := t.TempDir(), t.TempDir()
	saves := []string{filepath.Join(dir, "b"), filepath.Join(dir, "a"), filepath.Join(dir, "g")}
	b := v1Package(t, "beta", map[string][]map[string]any{"Stop": {helperHook(map[string]string{"HOOK_SAVE": saves[0], envPluginName: "forged"}, map[string]any{"cwd": "sub"})}}, map[string]string{"sub/x": ""})
	a := v1Package(t, "alpha", map[string][]map[string]any{"Stop": {helperHook(map[string]string{"HOOK_SAVE": saves[1]}, nil)}}, nil)
	global := filepath.Join(dir, "settings.json")
	gb, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{helperHook(map[string]string{"HOOK_SAVE": saves[2]}, nil)}}})
	writeTree(t, dir, map[string]string{"settings.json": string(gb)})
	r := load(t, Sources{Packages: []Package{b, a}, Workspace: ws, Home: home, GlobalSettings: []string{global}})
	var order []string
	for _, h := range r.Listing() {
		order = append(order, string(h.Scope)+":"+h.Plugin)
	}
	if !reflect.DeepEqual(order, []string{"plugin:alpha", "plugin:beta", "global:"}) {
		t.Fatalf("order %q", order)
	}
	if n := r.Observe(context.Background(), Stop, Payload{}); len(n) != 0 {
		t.Fatal(n)
	}
	rec := readRecord(t, saves[0])
	want := map[string]string{
		envPluginRoot: b.Root, envClaudeRoot: b.Root, envPluginName: "beta", envPluginVersion: "1.2.3",
		envHome: home, envWorkspaceRoot: ws, envClaudeProject: ws,
	}
	if !reflect.DeepEqual(rec.Env, want) {
		t.Fatalf("env\n got %v\nwant %v", rec.Env, want)
	}
	if rec.Cwd != filepath.Join(b.Root, "sub") {
		t.Fatalf("cwd %q", rec.Cwd)
	}
	if g := readRecord(t, saves[2]); g.Cwd != ws || g.Env[envWorkspaceRoot] != ws || g.Env[envPluginRoot] != "" {
		t.Fatalf("global hook %+v", g)
	}
}

func TestProjectSettingsNeedOptIn(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	save := filepath.Join(t.TempDir(), "rec")
	sb, _ := json.Marshal(map[string]any{"hooks": map[string]any{"Stop": []any{helperHook(map[string]string{"HOOK_SAVE": save}, nil)}}})
	writeTree(t, ws, map[string]string{".reasonix/settings.json": string(sb)})
	r, warns := Load(Sources{Workspace: ws})
	defer r.Close()
	if len(r.Listing()) != 0 || len(warns) != 1 || !strings.Contains(warns[0].String(), "1 project hook(s) not run") {
		t.Fatalf("listing %v warns %v", r.Listing(), warns)
	}
	r2 := load(t, Sources{Workspace: ws, ProjectSettings: true})
	if l := r2.Listing(); len(l) != 1 || l[0].Scope != ScopeProject {
		t.Fatalf("listing %+v", l)
	}
	r2.Observe(context.Background(), Stop, Payload{})
	if readRecord(t, save).Cwd != ws {
		t.Fatal("project hook did not run in the workspace")
	}
}

func TestMalformedSettingsWarnAndLoadNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"bad.json": `{"hooks": [`, "odd.json": `{"hooks":{"NoSuchEvent":[{"command":"x"}],"Stop":[{"match":"x"}]}}`})
	r, warns := Load(Sources{Workspace: dir, GlobalSettings: []string{filepath.Join(dir, "bad.json"), filepath.Join(dir, "odd.json"), filepath.Join(dir, "absent.json")}})
	defer r.Close()
	if len(r.Listing()) != 0 || len(warns) != 3 {
		t.Fatalf("listing %v warns %v", r.Listing(), warns)
	}
	for i, w := range []string{"invalid JSON", "hooks.NoSuchEvent: unknown hook event", "hooks.Stop[0]: a hook needs command or contextFile"} {
		if !strings.Contains(warns[i].String(), w) {
			t.Errorf("warning %d %q lacks %q", i, warns[i], w)
		}
	}
}

func TestCloseKillsRunningHooks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	asyncPid, syncPid := filepath.Join(dir, "a"), filepath.Join(dir, "s")
	pkg := v1Package(t, "p", map[string][]map[string]any{
		"PostToolUse": {helperHook(map[string]string{"HOOK_PIDFILE": asyncPid, "HOOK_BLOCK": "1"}, map[string]any{"async": true, "timeout": 600000})},
		"Stop":        {helperHook(map[string]string{"HOOK_PIDFILE": syncPid, "HOOK_BLOCK": "1"}, map[string]any{"timeout": 600000})},
	}, nil)
	r, _ := Load(Sources{Packages: []Package{pkg}, Workspace: dir})
	r.Run(context.Background(), PostToolUse, Payload{ToolName: "x"})
	done := make(chan Report)
	go func() { done <- r.Run(context.Background(), Stop, Payload{}) }()
	waitFile(t, asyncPid)
	waitFile(t, syncPid)
	r.Close() // returns only once the async hook has ended
	rep := <-done
	if rep.Results[0].Decision != Error || rep.Results[0].Err != errClosed.Error() {
		t.Fatalf("sync hook %+v", rep.Results[0])
	}
	if got := r.Run(context.Background(), Stop, Payload{}); got.Results[0].Err != errClosed.Error() {
		t.Fatalf("run after close %+v", got.Results)
	}
}

// waitFile waits for a hook to write f; the bound only ends a broken
// test instead of hanging it.
func waitFile(t *testing.T, f string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(f); err == nil {
			return
		}
		if time.Now().After(deadline) {
			panic("no hook wrote " + f)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestListingLabels(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 70)
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {{"command": long, "shell": "bash"}, {"contextFile": "a.md"}}}, map[string]string{"a.md": "x"})
	r := load(t, Sources{Packages: []Package{pkg}})
	l := r.Listing()
	if got := l[0].Label(); got != strings.Repeat("é", 60) {
		t.Fatalf("label %q", got)
	}
	if got := l[1].Label(); got != "context:"+filepath.Join(pkg.Root, "a.md") {
		t.Fatalf("label %q", got)
	}
	if !slices.Equal([]Form{l[0].Form, l[1].Form}, []Form{FormShell, FormContext}) {
		t.Fatal(l)
	}
}
