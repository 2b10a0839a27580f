package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// Environment of the hook child (the test binary run as a hook).
const (
	envHookStdout     = "RX_HOOK_STDOUT"     // printed on stdout
	envHookStderr     = "RX_HOOK_STDERR"     // printed on stderr
	envHookExit       = "RX_HOOK_EXIT"       // exit code
	envHookPidfile    = "RX_HOOK_PIDFILE"    // the hook's pid is written here
	envHookGrandchild = "RX_HOOK_GRANDCHILD" // a grandchild is started and writes its pid here
	envHookBlock      = "RX_HOOK_BLOCK"      // "1": never exit
	envHookGate       = "RX_HOOK_GATE"       // exit only once this file exists
)

// hookMain is the hook: it appends "hook <event> <payload>" to the log
// (envLog, shared with the test sidecars, so one file shows the order of
// hooks and interceptors), may leave a grandchild behind, may wait for a
// gate file or block, then prints and exits as told.
func hookMain() int {
	in, _ := io.ReadAll(os.Stdin)
	var ev struct {
		Event  string `json:"event"`
		Claude string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(in, &ev)
	if ev.Event == "" {
		ev.Event = ev.Claude
	}
	appendLog("hook " + ev.Event + " " + strings.TrimSpace(string(in)))
	if f := os.Getenv(envHookPidfile); f != "" {
		writeAtomic(f, strconv.Itoa(testenv.Pid()))
	}
	if f := os.Getenv(envHookGrandchild); f != "" {
		c := exec.Command(os.Args[0])
		c.Env = append(os.Environ(), envLog+"=", envHookGrandchild+"=", envHookPidfile+"="+f, envHookBlock+"=1")
		c.Stdin = strings.NewReader("{}")
		if err := c.Start(); err != nil {
			return 9
		}
		awaitFile(f)
	}
	if f := os.Getenv(envHookGate); f != "" {
		awaitFile(f)
	}
	if os.Getenv(envHookBlock) == "1" {
		for {
			time.Sleep(time.Hour)
		}
	}
	fmt.Fprint(os.Stdout, os.Getenv(envHookStdout))
	fmt.Fprint(os.Stderr, os.Getenv(envHookStderr))
	code, _ := strconv.Atoi(os.Getenv(envHookExit))
	return code
}

// awaitFile returns once f exists.
func awaitFile(f string) {
	for {
		if _, err := os.Stat(f); err == nil {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func writeAtomic(f, s string) {
	_ = os.WriteFile(f+".tmp", []byte(s), 0o644)
	_ = os.Rename(f+".tmp", f)
}

// hookEntry is a v1 manifest hook running the hook child in exec form,
// logging to log. extra sets other members (match, timeout, async,
// payloadFormat).
func hookEntry(log string, env map[string]string, extra map[string]any) map[string]any {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	e := map[string]string{envChild: "hook", envLog: log}
	for k, v := range env {
		e[k] = v
	}
	// A generous timeout: a loaded machine must not turn a slow start into
	// a timeout (the tests of timeouts set their own).
	h := map[string]any{"command": exe, "args": []string{}, "env": e, "timeout": 120000}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// hookPackage writes a v1 package declaring hooks and loads its manifest
// as the runtime does.
func hookPackage(t *testing.T, name string, hooks map[string][]map[string]any) hookrun.Package {
	t.Helper()
	doc, err := json.Marshal(map[string]any{"apiVersion": manifest.APIVersionV1, "name": name, "hooks": hooks})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "reasonix-plugin.json"), doc, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return hookrun.Package{Name: name, Root: root, Version: "1.0.0", Manifest: m}
}

// installKit installs examples/claude-kit into a fresh home through the
// real install path and returns it as the runtime would load it.
func installKit(t *testing.T) hookrun.Package {
	t.Helper()
	rec := installKitInto(t, t.TempDir())
	m, err := manifest.Load(rec.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if m.Kind != manifest.KindClaude {
		t.Fatalf("claude-kit loaded as a %s package", m.Kind)
	}
	return hookrun.Package{Name: rec.Name, Root: rec.Dir(), Manifest: m}
}

// installKitInto installs examples/claude-kit into the bridge home.
func installKitInto(t *testing.T, home string) manifest.Record {
	t.Helper()
	store := &manifest.Store{Dir: home}
	plan, err := store.Plan(manifest.InstallOptions{Source: filepath.Join(examplestest.RepoRoot(t), "examples", "claude-kit")})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := store.Install(plan)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// loadHooks builds the hook runner of pkgs, whose hooks inherit env
// beside the host's environment; it fails the test on any warning.
func loadHooks(t *testing.T, env []string, pkgs ...hookrun.Package) *hookrun.Runner {
	t.Helper()
	r, warns := hookrun.Load(hookrun.Sources{Workspace: t.TempDir(), Home: t.TempDir(), Packages: pkgs, Env: append(os.Environ(), env...)})
	if len(warns) > 0 {
		t.Fatalf("hook warnings: %v", warns)
	}
	t.Cleanup(r.Close)
	return r
}

// withHooks gives every generation the agent pins the hook runner r, as
// pluginrt's snapshots give theirs. It goes after onPlugins.
func withHooks(r *hookrun.Runner) option {
	return func(o *Options) { o.Runtime = hookedRuntime{o.Runtime, r} }
}

type hookedRuntime struct {
	Runtime
	r *hookrun.Runner
}

func (h hookedRuntime) Acquire() (Pinned, func()) {
	p, release := h.Runtime.Acquire()
	return hookedPinned{p, h.r}, release
}

type hookedPinned struct {
	Pinned
	r *hookrun.Runner
}

func (p hookedPinned) Hooks() *hookrun.Runner { return p.r }

// logLines returns the lines of log starting with prefix, the prefix cut.
func logLines(t *testing.T, log, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			out = append(out, rest)
		}
	}
	return out
}

// hookRuns returns the payloads the hooks of event were given, in order.
func hookRuns(t *testing.T, log, event string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range logLines(t, log, "hook "+event+" ") {
		var p map[string]any
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("hook payload %q: %v", l, err)
		}
		out = append(out, p)
	}
	return out
}

func noticesOf(us []Update, kind NoticeKind) []string {
	var out []string
	for _, u := range us {
		if u.Kind == UpdateNotice && u.Notice.Kind == kind {
			out = append(out, u.Notice.Text)
		}
	}
	return out
}

func skipWithoutSh(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("claude-kit's hooks are sh scripts")
	}
}

// The reference's order at every moment (PLUGIN_CONTENTS §9), recorded
// by a real sidecar intercepting every point and real hooks of every
// event writing to the same log.
func TestHookOrderAgainstInterceptors(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "rec", intercepts: allPoints})
	hooks := map[string][]map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PermissionRequest", "Notification", "PreToolUse", "PostToolUse", "PostLLMCall", "Stop", "SessionEnd"} {
		hooks[ev] = []map[string]any{hookEntry(ps.log, nil, nil)}
	}
	r := loadHooks(t, nil, hookPackage(t, "order", hooks))
	prov := newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "new.txt", "content": "x"})), answer("done"))
	h := newHarness(t, prov, onPlugins(ps), withHooks(r), withApproval(ApproveAsk))
	s := h.session()
	res, err := s.Prompt(ctx(t), "hello")
	if err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range logLines(t, ps.log, "") {
		switch {
		case strings.HasPrefix(l, "rec intercept "):
			got = append(got, strings.TrimPrefix(l, "rec intercept "))
		case strings.HasPrefix(l, "hook ") && !strings.HasPrefix(l, "hook Notification "):
			got = append(got, "hook:"+strings.Fields(l)[1])
		}
	}
	want := []string{
		"hook:SessionStart",
		"input.receive", "hook:UserPromptSubmit", "agent.before_start",
		"context.prepare", "provider.request", "hook:PostLLMCall", "provider.response",
		"hook:PermissionRequest", "permission.decision", "tool.before", "hook:PreToolUse", "tool.after", "hook:PostToolUse",
		"context.prepare", "provider.request", "hook:PostLLMCall", "provider.response",
		"hook:Stop",
		"hook:SessionEnd",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order\ngot  %v\nwant %v", got, want)
	}
	// session.start and session.end reach the sidecar as events, after
	// the hooks of the same moment finished. Events are asynchronous, so
	// wait for the last.
	var all []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if all = logLines(t, ps.log, ""); slices.Contains(all, "rec event session.end") || time.Now().After(deadline) {
			break
		}
	}
	before := func(a, b string) {
		t.Helper()
		i, j := slices.IndexFunc(all, func(l string) bool { return strings.HasPrefix(l, a) }), slices.Index(all, b)
		if i < 0 || j < 0 || i > j {
			t.Errorf("%q (line %d) is not before %q (line %d)", a, i, b, j)
		}
	}
	before("hook SessionStart ", "rec event session.start")
	before("hook SessionEnd ", "rec event session.end")
	// The approval prompt fired the Notification hook once; the turn
	// waited for it.
	if n := hookRuns(t, ps.log, "Notification"); len(n) != 1 || n[0]["notificationType"] != "permission_prompt" || !strings.Contains(n[0]["message"].(string), "apply_edit") {
		t.Errorf("Notification runs %v", n)
	}
	if len(h.editor.questions()) != 1 {
		t.Errorf("the editor was asked %d times", len(h.editor.questions()))
	}
	// What the hooks were told.
	pre := hookRuns(t, ps.log, "PreToolUse")
	if len(pre) != 1 || pre[0]["toolName"] != "apply_edit" || pre[0]["sessionId"] != s.ID() || pre[0]["cwd"] != s.Workspace() || pre[0]["turn"] != 1.0 {
		t.Errorf("PreToolUse payload %v", pre)
	}
	if stop := hookRuns(t, ps.log, "Stop"); len(stop) != 1 || stop[0]["lastAssistantText"] != "done" {
		t.Errorf("Stop payload %v", stop)
	}
	if end := hookRuns(t, ps.log, "SessionEnd"); len(end) != 1 || end[0]["reason"] != "other" {
		t.Errorf("SessionEnd payload %v", end)
	}
}

// input.receive rewrites the prompt; claude-kit's UserPromptSubmit hook
// sees the rewritten text, and its additional context reaches the model
// with the prompt, not the user's display.
func TestUserPromptSubmitSeesRewrittenInput(t *testing.T) {
	t.Parallel()
	skipWithoutSh(t)
	ps := startPlugins(t, pluginSpec{id: "rw", intercepts: []extproto.HookPoint{extproto.InputReceive}, rules: map[extproto.HookPoint]rule{
		extproto.InputReceive: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"rewritten by rw"}`)},
	}})
	kitLog := filepath.Join(t.TempDir(), "kit.log")
	r := loadHooks(t, []string{"CLAUDE_KIT_LOG=" + kitLog}, installKit(t))
	prov := newScripted(answer("ok"))
	h := newHarness(t, prov, onPlugins(ps), withHooks(r))
	s := h.session()
	if _, err := s.Prompt(ctx(t), "typed by the user"); err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, kitLog, "")
	var p struct {
		Event  string `json:"hook_event_name"`
		Prompt string `json:"prompt"`
		Sess   string `json:"session_id"`
	}
	if len(lines) < 1 || json.Unmarshal([]byte(lines[0]), &p) != nil || p.Event != "UserPromptSubmit" || p.Prompt != "rewritten by rw" || p.Sess != s.ID() {
		t.Fatalf("the hook saw %q", lines)
	}
	want := "<hook-context event=\"UserPromptSubmit\">\nclaude-kit: this project keeps its conventions in CONVENTIONS.md.\n</hook-context>\n\nrewritten by rw"
	msgs := prov.requests()[0].Body.Messages
	if last := msgs[len(msgs)-1]; last.Role != extproto.RoleUser || last.Content != want {
		t.Fatalf("the model got %+v", last)
	}
	for _, u := range h.updates.of(s.ID()) {
		if u.Kind == UpdateUserMessage && u.Text != "rewritten by rw" {
			t.Errorf("the user sees %q", u.Text)
		}
	}
}

// claude-kit's PreToolUse hook (matcher Bash, Claude JSON deny) refuses
// run_command; list_files, called in the same response, runs. The model
// gets "blocked: <reason>".
func TestPreToolUseClaudeHookBlocksOneTool(t *testing.T) {
	t.Parallel()
	skipWithoutSh(t)
	kitLog := filepath.Join(t.TempDir(), "kit.log")
	r := loadHooks(t, []string{"CLAUDE_KIT_LOG=" + kitLog}, installKit(t))
	prov := newScripted(
		calls(call("c1", "run_command", map[string]any{"command": []string{"touch", "made-by-the-tool"}}), call("c2", "list_files", "{}")),
		answer("done"))
	h := newHarness(t, prov, withHooks(r))
	h.write("seen.txt", "x")
	s := h.session()
	if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "made-by-the-tool")); err == nil {
		t.Error("the blocked command ran")
	}
	done := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, "")
	results := map[string]ToolCall{}
	for _, c := range done {
		results[c.ID] = c
	}
	if c := results["c1"]; c.Status != ToolFailed || c.Output != "blocked: claude-kit does not allow shell commands" {
		t.Errorf("run_command %+v", c)
	}
	if c := results["c2"]; c.Status != ToolCompleted || !strings.Contains(c.Output, "seen.txt") {
		t.Errorf("list_files %+v", c)
	}
	// The model sees the refusal as the tool's result.
	msgs := prov.requests()[1].Body.Messages
	var refused bool
	for _, m := range msgs {
		refused = refused || (m.Role == extproto.RoleTool && m.ToolCallID == "c1" && m.Content == "blocked: claude-kit does not allow shell commands")
	}
	if !refused {
		t.Errorf("second request %+v", msgs)
	}
	// The hook saw Claude's tool name and input; it fired for Bash only.
	var pre []map[string]any
	for _, l := range logLines(t, kitLog, "") {
		var p map[string]any
		if json.Unmarshal([]byte(l), &p) == nil && p["hook_event_name"] == "PreToolUse" {
			pre = append(pre, p)
		}
	}
	if len(pre) != 1 || pre[0]["tool_name"] != "Bash" || fmt.Sprint(pre[0]["tool_input"]) != "map[command:touch made-by-the-tool]" {
		t.Fatalf("PreToolUse payloads %v", pre)
	}
	// Claude Code's common and tool fields, and no other event's.
	if tp, _ := pre[0]["transcript_path"].(string); pre[0]["tool_use_id"] != "c1" || filepath.Base(tp) != s.ID()+".jsonl" || pre[0]["permission_mode"] == nil || pre[0]["prompt"] != nil {
		t.Errorf("PreToolUse payload %v", pre[0])
	}
	if ns := noticesOf(h.updates.of(s.ID()), NoticeWarning); len(ns) != 1 || !strings.Contains(ns[0], "hook [plugin/PreToolUse]") || !strings.Contains(ns[0], "block: claude-kit does not allow shell commands") {
		t.Errorf("notices %q", ns)
	}
}

// SessionStart output reaches the first prompt of a session only, and
// again the first after the session is loaded.
func TestSessionStartContextReachesFirstTurnOnly(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	r := loadHooks(t, nil, hookPackage(t, "start", map[string][]map[string]any{
		"SessionStart": {hookEntry(log, map[string]string{envHookStdout: "start context"}, nil)},
	}))
	prov := newScripted(answer("one"), answer("two"), answer("three"))
	h := newHarness(t, prov, withHooks(r))
	s := h.session()
	for _, p := range []string{"first", "second"} {
		if _, err := s.Prompt(ctx(t), p); err != nil {
			t.Fatal(err)
		}
	}
	wrapped := func(text string) string {
		return "<hook-context event=\"SessionStart\">\nstart context\n</hook-context>\n\n" + text
	}
	if got := s.History(); got[0].Content != wrapped("first") || got[2].Content != "second" {
		t.Fatalf("history %+v", got)
	}
	if runs := hookRuns(t, log, "SessionStart"); len(runs) != 1 || runs[0]["source"] != "startup" || runs[0]["sessionId"] != s.ID() {
		t.Fatalf("SessionStart runs %v", runs)
	}
	id := s.ID()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	loaded, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := loaded.Prompt(ctx(t), "third"); err != nil {
		t.Fatal(err)
	}
	if got := loaded.History(); got[4].Content != wrapped("third") {
		t.Fatalf("history after load %+v", got)
	}
	if runs := hookRuns(t, log, "SessionStart"); len(runs) != 2 {
		t.Fatalf("SessionStart ran %d times", len(runs))
	}
}

// A UserPromptSubmit block ends the turn before the model is asked and
// shows why; the prompt does not join the history and no Stop hook runs.
func TestUserPromptSubmitBlockAbortsTurn(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	r := loadHooks(t, nil, hookPackage(t, "guard", map[string][]map[string]any{
		"UserPromptSubmit": {hookEntry(log, map[string]string{envHookExit: "2", envHookStderr: "no prompts today"}, nil)},
		"Stop":             {hookEntry(log, nil, nil)},
	}))
	prov := newScripted(answer("never"))
	h := newHarness(t, prov, withHooks(r))
	s := h.session()
	res, err := s.Prompt(ctx(t), "please")
	if err != nil || res.Stop != StopRefusal {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	if len(prov.requests()) != 0 || len(s.History()) != 0 {
		t.Fatalf("the turn ran: %d requests, history %+v", len(prov.requests()), s.History())
	}
	us := h.updates.of(s.ID())
	if w := noticesOf(us, NoticeWarning); len(w) != 1 || !strings.HasSuffix(w[0], "— block: no prompts today") {
		t.Errorf("warnings %q", w)
	}
	if b := noticesOf(us, NoticeBlocked); len(b) != 1 {
		t.Errorf("blocked notices %q", b)
	}
	if got := kinds(us); slices.Contains(got, UpdateUserMessage) || got[len(got)-1] != UpdateTurnEnd {
		t.Errorf("updates %v", got)
	}
	if runs := hookRuns(t, log, "Stop"); len(runs) != 0 {
		t.Errorf("Stop ran for a turn that did not start: %v", runs)
	}
}

// PostToolUse observes a successful call, PostToolUseFailure a failed
// one (and native PostToolUse observers see the failure too, as the
// reference's TestRunnerPostToolUseFailurePreservesNativeObserver).
func TestRunnerPostToolUseFailurePreservesNativeObserver(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	r := loadHooks(t, nil, hookPackage(t, "watch", map[string][]map[string]any{
		"PostToolUse":        {hookEntry(log, nil, map[string]any{"match": "read_file"})},
		"PostToolUseFailure": {hookEntry(log, nil, nil)},
	}))
	prov := newScripted(calls(call("c1", "read_file", `{"path":"a.txt"}`), call("c2", "read_file", `{"path":"missing.txt"}`)), answer("done"))
	h := newHarness(t, prov, withHooks(r))
	h.write("a.txt", "alpha\n")
	s := h.session()
	if _, err := s.Prompt(ctx(t), "read"); err != nil {
		t.Fatal(err)
	}
	post, fail := hookRuns(t, log, "PostToolUse"), hookRuns(t, log, "PostToolUseFailure")
	if len(post) != 2 || !strings.Contains(post[0]["toolResult"].(string), "alpha") || post[0]["error"] != nil {
		t.Fatalf("PostToolUse runs %v", post)
	}
	if post[1]["error"] == nil || post[1]["toolArgs"].(map[string]any)["path"] != "missing.txt" {
		t.Errorf("native observer of the failure %v", post[1])
	}
	if len(fail) != 1 || !strings.Contains(fail[0]["error"].(string), "missing.txt") || fail[0]["isInterrupt"] != nil {
		t.Errorf("PostToolUseFailure runs %v", fail)
	}
}

// A Claude-format PermissionRequest hook denies one tool without asking
// the editor (the reference's TestRunnerPermissionRequestClaudeDecisions);
// a tool it does not match is asked about as usual.
func TestRunnerPermissionRequestClaudeDecisions(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	deny := `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not that file"}}}`
	r := loadHooks(t, nil, hookPackage(t, "perm", map[string][]map[string]any{
		"PermissionRequest": {hookEntry(log, map[string]string{envHookStdout: deny}, map[string]any{"match": "Write", "payloadFormat": "claude"})},
	}))
	prov := newScripted(calls(call("c1", "apply_edit", `{"path":"a.txt","content":"beta"}`), call("c2", "run_command", `{"command":["true"]}`)), answer("done"))
	h := newHarness(t, prov, withHooks(r), withApproval(ApproveAsk))
	h.write("a.txt", "alpha\n")
	s := h.session()
	if _, err := s.Prompt(ctx(t), "go"); err != nil {
		t.Fatal(err)
	}
	if q := h.editor.questions(); len(q) != 1 || q[0].ToolCall.Name != "run_command" {
		t.Fatalf("the editor was asked %+v", q)
	}
	us := h.updates.of(s.ID())
	var outcome *Permission
	for _, u := range us {
		if u.Kind == UpdatePermissionOutcome && u.Permission.ToolCallID == "c1" {
			outcome = u.Permission
		}
	}
	if outcome == nil || outcome.Outcome != PermissionDeny || outcome.DecidedBy != DecidedByHook {
		t.Fatalf("outcome %+v", outcome)
	}
	for _, c := range findTool(us, UpdateToolCallUpdate, ToolFailed) {
		if c.ID == "c1" && c.Output != "permission denied by a PermissionRequest hook; the call did not run" {
			t.Errorf("apply_edit %+v", c)
		}
	}
	if runs := hookRuns(t, log, "PermissionRequest"); len(runs) != 1 || runs[0]["tool_name"] != "Write" || !strings.HasSuffix(runs[0]["tool_input"].(map[string]any)["file_path"].(string), "a.txt") {
		t.Errorf("PermissionRequest runs %v", runs)
	}
	if w := noticesOf(us, NoticeWarning); len(w) != 1 || !strings.HasSuffix(w[0], "block: not that file") {
		t.Errorf("warnings %q", w)
	}
}

// PostLLMCall replaces the reasoning before provider.response sees it
// (the reference's TestRunnerPostLLMCallReplacesReasoning, in a turn).
func TestRunnerPostLLMCallReplacesReasoning(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "resp", intercepts: []extproto.HookPoint{extproto.ProviderResponsePt}})
	r := loadHooks(t, nil, hookPackage(t, "llm", map[string][]map[string]any{
		"PostLLMCall": {hookEntry(ps.log, map[string]string{envHookStdout: "hooked reasoning"}, nil)},
	}))
	prov := newScripted(step{chunks: []extproto.ProviderChunk{thought("raw thinking"), text("answer"), usage(10, 2, "stop"), done()}})
	h := newHarness(t, prov, onPlugins(ps), withHooks(r))
	s := h.session()
	if _, err := s.Prompt(ctx(t), "think"); err != nil {
		t.Fatal(err)
	}
	if runs := hookRuns(t, ps.log, "PostLLMCall"); len(runs) != 1 || runs[0]["reasoning"] != "raw thinking" || runs[0]["turn"] != 1.0 {
		t.Fatalf("PostLLMCall runs %v", runs)
	}
	seen := logLines(t, ps.log, "resp payload provider.response ")
	var p extproto.ProviderResponsePayload
	if len(seen) != 1 || json.Unmarshal([]byte(seen[0]), &p) != nil || p.Reasoning != "hooked reasoning" {
		t.Fatalf("provider.response saw %q", seen)
	}
	if hist := s.History(); hist[1].ReasoningContent != "hooked reasoning" {
		t.Errorf("history %+v", hist)
	}
	if n := noticesOf(h.updates.of(s.ID()), NoticeReplaced); len(n) != 1 || !strings.HasSuffix(n[0], "\nhooked reasoning") {
		t.Errorf("notices %q", n)
	}
}

// PreCompact guidance is appended to the compaction instructions before
// compaction.prepare sees them.
func TestPreCompactGuidanceReachesCompactionPrepare(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "cmp", intercepts: []extproto.HookPoint{extproto.CompactionPrepare}})
	r := loadHooks(t, nil, hookPackage(t, "compact", map[string][]map[string]any{
		"PreCompact": {hookEntry(ps.log, map[string]string{envHookStdout: "keep the TODO list"}, nil)},
	}))
	h := compactable(t, []step{answer(long), answer("the summary"), answer("second answer")}, onPlugins(ps), withHooks(r))
	s := h.session()
	for _, p := range []string{"first", "second"} {
		if _, err := s.Prompt(ctx(t), p); err != nil {
			t.Fatal(err)
		}
	}
	want := compactionGuidance + "\n\nkeep the TODO list"
	seen := logLines(t, ps.log, "cmp payload compaction.prepare ")
	var p extproto.CompactionPreparePayload
	if len(seen) != 1 || json.Unmarshal([]byte(seen[0]), &p) != nil || p.Guidance != want {
		t.Fatalf("compaction.prepare saw %q", seen)
	}
	if m := h.prov.requests()[1].Body.Messages; m[len(m)-1].Content != want {
		t.Errorf("the summariser was told %q", m[len(m)-1].Content)
	}
	if runs := hookRuns(t, ps.log, "PreCompact"); len(runs) != 1 || runs[0]["trigger"] != "auto" {
		t.Errorf("PreCompact runs %v", runs)
	}
}

// A cancelled turn ends with StopFailure, isInterrupt set (the
// reference's TestRunnerStopResultPreservesNativeStopObserver: native
// Stop hooks observe it too).
func TestRunnerStopResultPreservesNativeStopObserver(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	r := loadHooks(t, nil, hookPackage(t, "stop", map[string][]map[string]any{
		"Stop":        {hookEntry(log, nil, nil)},
		"StopFailure": {hookEntry(log, nil, nil)},
	}))
	prov := newScripted(step{chunks: []extproto.ProviderChunk{text("thinking ")}, hang: true})
	prov.started = make(chan providers.Request, 1)
	h := newHarness(t, prov, withHooks(r))
	s := h.session()
	go func() {
		<-prov.started
		s.Cancel()
	}()
	res, err := s.Prompt(ctx(t), "go")
	if err != nil || res.Stop != StopCancelled {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	fail, stop := hookRuns(t, log, "StopFailure"), hookRuns(t, log, "Stop")
	if len(fail) != 1 || fail[0]["isInterrupt"] != true || fail[0]["error"] != "cancelled" {
		t.Fatalf("StopFailure runs %v", fail)
	}
	if len(stop) != 1 || stop[0]["isInterrupt"] != true {
		t.Fatalf("native Stop observer runs %v", stop)
	}
}

// examples/claude-kit, installed, is served whole: its hooks (Claude
// format), commands, skill, agent and MCP server, as the runtime builds
// them (pluginrt's loadContents).
func TestClaudeKitFixture(t *testing.T) {
	t.Parallel()
	pkg := installKit(t)
	r := loadHooks(t, nil, pkg)
	var hooks []string
	for _, h := range r.Listing() {
		hooks = append(hooks, fmt.Sprintf("%s %s %s claude=%v", h.Event, h.Plugin, h.Match, h.Claude))
	}
	if want := []string{"PreToolUse claude-kit Bash claude=true", "UserPromptSubmit claude-kit  claude=true"}; !slices.Equal(hooks, want) {
		t.Errorf("hooks %q, want %q", hooks, want)
	}
	roots, warns := plugincontent.Roots([]plugincontent.Package{pkg}, plugincontent.Places{})
	md, lw := plugincontent.Load(roots, plugincontent.Options{})
	if len(warns)+len(lw) > 0 {
		t.Errorf("warnings %v %v", warns, lw)
	}
	var cmds []string
	for _, c := range md.Commands() {
		cmds = append(cmds, c.Name)
	}
	if want := []string{"claude-kit:git:summary", "claude-kit:review"}; !slices.Equal(cmds, want) {
		t.Errorf("commands %q", cmds)
	}
	if c, _ := md.LookupCommand("claude-kit:review"); c.ArgHint != "<file> [focus]" || c.Description == "" {
		t.Errorf("claude-kit:review %+v", c)
	}
	var skills []string
	for _, sk := range md.SlashSkills() {
		skills = append(skills, fmt.Sprintf("%s subagent=%v %v", sk.Name, sk.Subagent, sk.AllowedTools))
	}
	if want := []string{"reviewer subagent=true [read_file grep glob]", "summarize subagent=false []"}; !slices.Equal(skills, want) {
		t.Errorf("skills %q", skills)
	}
	servers, mw := mcphost.PackageServers(pkg, "")
	if len(mw) > 0 || len(servers) != 1 || servers[0].Name != "everything" || servers[0].Command != "node" || !servers[0].AutoStart || !servers[0].Imported ||
		!slices.Equal(servers[0].Args, []string{"${RX_SERVER_EVERYTHING}", "stdio"}) {
		t.Errorf("MCP servers %+v %v", servers, mw)
	}
}

// SubagentStop runs when a subagent of a turn ends, told its last text;
// what it says goes to the parent turn's updates. (The subagent runner
// calls turn.subagentStopHooks.)
func TestSubagentStopHooks(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "log")
	r := loadHooks(t, nil, hookPackage(t, "sub", map[string][]map[string]any{
		"SubagentStop": {hookEntry(log, map[string]string{envHookExit: "1", envHookStderr: "noted"}, nil)},
	}))
	h := newHarness(t, newScripted(), withHooks(r))
	s := h.session()
	g, release := h.opts.Runtime.Acquire()
	defer release()
	parent, child := &turn{s: s, g: g, n: 1}, &turn{s: s, g: g, n: 1}
	parent.subagentStopHooks(ctx(t), child, "the subagent's answer")
	if runs := hookRuns(t, log, "SubagentStop"); len(runs) != 1 || runs[0]["lastAssistantText"] != "the subagent's answer" || runs[0]["sessionId"] != s.ID() {
		t.Fatalf("SubagentStop runs %v", runs)
	}
	if w := noticesOf(h.updates.of(s.ID()), NoticeWarning); len(w) != 1 || !strings.HasSuffix(w[0], "— warn: noted") {
		t.Errorf("warnings %q", w)
	}
}

func TestClaudePermissionMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    Mode
		a    Approval
		want string
	}{
		{ModeNormal, ApproveAsk, "default"},
		{ModeNormal, ApproveAuto, "acceptEdits"},
		{ModeNormal, ApproveYolo, "bypassPermissions"},
		{ModePlan, ApproveYolo, "plan"},
		{"", "", "default"},
	}
	for _, tc := range tests {
		if got := claudePermissionMode(tc.m, tc.a); got != tc.want {
			t.Errorf("%s/%s: %s, want %s", tc.m, tc.a, got, tc.want)
		}
	}
}
