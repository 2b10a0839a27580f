package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/testenv"
)

// scripted describes one fake plugin of a dispatch test.
type scripted struct {
	id        string
	mode      string // default "ok"
	priority  int
	required  bool
	intercept []extproto.HookPoint
	replaces  []string
	timeoutMs int64
	rules     map[extproto.HookPoint]fakeRule
}

// startScripted starts a generation of fake plugins that share one call
// log, and returns it with a reader of that log.
func startScripted(t *testing.T, plugins ...scripted) (*Generation, func() []string) {
	t.Helper()
	logFile := filepath.Join(t.TempDir(), "calls.log")
	var ps []*Plugin
	for _, sp := range plugins {
		mode := sp.mode
		if mode == "" {
			mode = "ok"
		}
		p, _ := fakePlugin(t, sp.id, mode, nil)
		p.Priority, p.Required, p.TimeoutMillis = sp.priority, sp.required, sp.timeoutMs
		p.Intercepts = sp.intercept
		for _, r := range sp.replaces {
			slot, err := extproto.ParseSlot(r)
			if err != nil {
				t.Fatal(err)
			}
			p.Replaces = append(p.Replaces, slot)
		}
		rules, _ := json.Marshal(sp.rules)
		p.Env[envFakeRule] = string(rules)
		p.Env[envFakeLog] = logFile
		ps = append(ps, p)
	}
	m := newWaitingManager(t)
	t.Cleanup(m.Close)
	g, err := m.Load(context.Background(), ps)
	if err != nil {
		t.Fatal(err)
	}
	return g, func() []string { return readLines(logFile) }
}

func readLines(file string) []string {
	raw, _ := os.ReadFile(file)
	return strings.Split(strings.TrimSpace(string(raw)), "\n")
}

func calls(lines []string, kind string) []string {
	var out []string
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) >= 3 && f[1] == kind {
			out = append(out, f[0]+" "+f[2])
		}
	}
	return out
}

var input = extproto.InputReceive

func text(s string) *extproto.InputReceivePayload { return &extproto.InputReceivePayload{Text: s} }

func TestChainOrderAndReplace(t *testing.T) {
	t.Parallel()
	g, log := startScripted(t,
		scripted{id: "a", priority: 10, intercept: []extproto.HookPoint{input}},
		scripted{id: "m", intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{
			input: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"rewritten by m"}`)},
		}},
		scripted{id: "b", intercept: []extproto.HookPoint{input}},
		scripted{id: "z", priority: -5, intercept: []extproto.HookPoint{input}},
	)
	out, err := g.Intercept(context.Background(), input, text("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Payload.(*extproto.InputReceivePayload).Text; got != "rewritten by m" || !out.Changed {
		t.Fatalf("final payload %q changed=%v", got, out.Changed)
	}
	var order []string
	for _, r := range out.Rulings {
		order = append(order, r.Plugin+":"+string(r.Decision))
	}
	if strings.Join(order, " ") != "z:continue b:continue m:replace a:continue" {
		t.Fatalf("rulings %v", order)
	}
	lines := log()
	got := calls(lines, "intercept")
	if strings.Join(got, ",") != "z input.receive,b input.receive,m input.receive,a input.receive" {
		t.Fatalf("call order %v", got)
	}
	// a ran after m and saw m's replacement; every call had its own seq=1
	// (per connection) and the 5 s input budget.
	for _, l := range lines {
		if strings.HasPrefix(l, "a intercept") && !strings.Contains(l, `"rewritten by m"`) {
			t.Fatalf("a did not see the replacement: %s", l)
		}
		if strings.Contains(l, " intercept ") && !strings.Contains(l, "seq=1 timeout=5000") {
			t.Fatalf("wrong seq or budget: %s", l)
		}
	}
}

func TestDecisionMatrix(t *testing.T) {
	t.Parallel()
	secret := "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	tests := []struct {
		name     string
		plugins  []scripted
		point    extproto.HookPoint
		payload  extproto.Payload
		wantErr  string // substring of the operation error; "" = no error
		check    func(t *testing.T, out Outcome)
		reasonIs error
	}{
		{
			name: "block stops the chain with a redacted reason",
			plugins: []scripted{
				{id: "a", intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{input: {Decision: extproto.DecisionBlock, Reason: "policy says no, token=" + secret}}},
				{id: "b", intercept: []extproto.HookPoint{input}},
			},
			point: input, payload: text("x"),
			check: func(t *testing.T, out Outcome) {
				if !out.Blocked || out.BlockedBy != "a" || len(out.Rulings) != 1 {
					t.Fatalf("outcome %+v", out)
				}
				if strings.Contains(out.Reason, secret) || !strings.HasPrefix(out.Reason, "policy says no") {
					t.Fatalf("reason %q", out.Reason)
				}
			},
		},
		{
			name:    "optional invalid replacement is skipped with a warning",
			plugins: []scripted{{id: "a", intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{input: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"x","extra":1}`)}}}},
			point:   input, payload: text("keep"),
			check: func(t *testing.T, out Outcome) {
				if out.Changed || out.Payload.(*extproto.InputReceivePayload).Text != "keep" {
					t.Fatalf("payload changed: %+v", out.Payload)
				}
				if len(out.Warnings) != 1 || !strings.Contains(out.Warnings[0], "extension a violated the intercept contract at input.receive: invalid input.receive payload: /extra") {
					t.Fatalf("warnings %q", out.Warnings)
				}
			},
		},
		{
			name:    "required invalid replacement fails the operation",
			plugins: []scripted{{id: "a", required: true, intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{input: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":""}`)}}}},
			point:   input, payload: text("keep"),
			wantErr: "extension a violated the intercept contract at input.receive: invalid input.receive payload: /text",
		},
		{
			name:    "allow outside permission.decision is a violation",
			plugins: []scripted{{id: "a", required: true, intercept: []extproto.HookPoint{extproto.ToolBefore}, rules: map[extproto.HookPoint]fakeRule{extproto.ToolBefore: {Decision: extproto.DecisionAllow}}}},
			point:   extproto.ToolBefore, payload: &extproto.ToolBeforePayload{Name: "read_file", Arguments: `{"path":"a"}`},
			wantErr: `extension a violated the intercept contract at tool.before: decision "allow" is only legal at permission.decision`,
		},
		{
			name: "permission allow overrides a host deny, is audited and ends the chain",
			plugins: []scripted{
				{id: "a", intercept: []extproto.HookPoint{extproto.PermissionDecision}, rules: map[extproto.HookPoint]fakeRule{extproto.PermissionDecision: {Decision: extproto.DecisionAllow}}},
				{id: "b", intercept: []extproto.HookPoint{extproto.PermissionDecision}, rules: map[extproto.HookPoint]fakeRule{extproto.PermissionDecision: {Decision: extproto.DecisionDeny}}},
			},
			point: extproto.PermissionDecision, payload: &extproto.PermissionDecisionPayload{Name: "run_command", HostDecision: extproto.HostDeny},
			check: func(t *testing.T, out Outcome) {
				if out.Verdict != extproto.HostAllow || len(out.Rulings) != 1 {
					t.Fatalf("verdict %q rulings %d", out.Verdict, len(out.Rulings))
				}
				if len(out.Audit) != 1 || out.Audit[0] != `extension a allowed the tool "run_command" overriding the host deny` {
					t.Fatalf("audit %q", out.Audit)
				}
			},
		},
		{
			name:    "permission deny overrides a host allow",
			plugins: []scripted{{id: "a", intercept: []extproto.HookPoint{extproto.PermissionDecision}, rules: map[extproto.HookPoint]fakeRule{extproto.PermissionDecision: {Decision: extproto.DecisionDeny}}}},
			point:   extproto.PermissionDecision, payload: &extproto.PermissionDecisionPayload{Name: "run_command", HostDecision: extproto.HostAllow},
			check: func(t *testing.T, out Outcome) {
				if out.Verdict != extproto.HostDeny || len(out.Audit) != 0 {
					t.Fatalf("verdict %q audit %q", out.Verdict, out.Audit)
				}
			},
		},
		{
			name:    "permission continue keeps the host verdict",
			plugins: []scripted{{id: "a", intercept: []extproto.HookPoint{extproto.PermissionDecision}}},
			point:   extproto.PermissionDecision, payload: &extproto.PermissionDecisionPayload{Name: "x", HostDecision: extproto.HostDeny},
			check: func(t *testing.T, out Outcome) {
				if out.Verdict != extproto.HostDeny {
					t.Fatalf("verdict %q", out.Verdict)
				}
			},
		},
		{
			name: "slot owner replace is final after the chain",
			plugins: []scripted{
				{id: "chain", intercept: []extproto.HookPoint{extproto.ContextPrepare}, rules: map[extproto.HookPoint]fakeRule{extproto.ContextPrepare: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"messages":[{"role":"user","content":"chain"}]}`)}}},
				{id: "owner", replaces: []string{"context"}, rules: map[extproto.HookPoint]fakeRule{extproto.ContextPrepare: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"messages":[{"role":"user","content":"owner"}]}`)}}},
			},
			point: extproto.ContextPrepare, payload: &extproto.ContextPreparePayload{Messages: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: "host"}}},
			check: func(t *testing.T, out Outcome) {
				if got := out.Payload.(*extproto.ContextPreparePayload).Messages[0].Content; got != "owner" {
					t.Fatalf("messages %+v", out.Payload)
				}
				if len(out.Rulings) != 2 || out.Rulings[0].Plugin != "chain" {
					t.Fatalf("rulings %+v, want the chain's, then the owner's", out.Rulings)
				}
				if last := out.Rulings[len(out.Rulings)-1]; !last.Owner || last.Plugin != "owner" {
					t.Fatalf("last ruling %+v", last)
				}
			},
		},
		{
			name:    "slot owner timeout fails the operation with intercept_timeout",
			plugins: []scripted{{id: "owner", timeoutMs: 200, replaces: []string{"context"}, rules: map[extproto.HookPoint]fakeRule{extproto.ContextPrepare: {Decision: extproto.DecisionContinue, SleepMs: 5000}}}},
			point:   extproto.ContextPrepare, payload: &extproto.ContextPreparePayload{},
			wantErr: "extension owner failed at context.prepare: extension owner did not answer context.prepare within 200ms", reasonIs: extproto.ErrInterceptTimeout,
		},
		{
			name:    "slot owner block blocks",
			plugins: []scripted{{id: "owner", replaces: []string{"compaction"}, rules: map[extproto.HookPoint]fakeRule{extproto.CompactionPrepare: {Decision: extproto.DecisionBlock, Reason: "not now"}}}},
			point:   extproto.CompactionPrepare, payload: &extproto.CompactionPreparePayload{},
			check: func(t *testing.T, out Outcome) {
				if !out.Blocked || out.BlockedBy != "owner" || out.Reason != "not now" {
					t.Fatalf("outcome %+v", out)
				}
			},
		},
		{
			name:    "slot owner deny is fatal",
			plugins: []scripted{{id: "owner", replaces: []string{"permission"}, rules: map[extproto.HookPoint]fakeRule{extproto.PermissionDecision: {Decision: extproto.DecisionDeny}}}},
			point:   extproto.PermissionDecision, payload: &extproto.PermissionDecisionPayload{Name: "x", HostDecision: extproto.HostAllow},
			wantErr: `extension owner violated the intercept contract at permission.decision: strategy ruling "deny" is not continue or replace`,
		},
		{
			name:    "tool slot owner rules only its tool",
			plugins: []scripted{{id: "owner", replaces: []string{"tool:read_file"}, rules: map[extproto.HookPoint]fakeRule{extproto.ToolBefore: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"name":"read_file","arguments":"{\"path\":\"b\"}"}`)}}}},
			point:   extproto.ToolBefore, payload: &extproto.ToolBeforePayload{Name: "read_file", Arguments: `{"path":"a"}`},
			check: func(t *testing.T, out Outcome) {
				if got := out.Payload.(*extproto.ToolBeforePayload).Arguments; got != `{"path":"b"}` {
					t.Fatalf("arguments %q", got)
				}
			},
		},
		{
			name:    "session phase mismatch is a violation",
			plugins: []scripted{{id: "owner", replaces: []string{"session_policy"}, rules: map[extproto.HookPoint]fakeRule{extproto.SessionSave: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"phase":"load","sessionPath":"/s"}`)}}}},
			point:   extproto.SessionSave, payload: &extproto.SessionSavePayload{Phase: "save", SessionPath: "/s"},
			wantErr: "extension owner violated the intercept contract at session.save",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _ := startScripted(t, tc.plugins...)
			out, err := g.Intercept(context.Background(), tc.point, tc.payload)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if tc.reasonIs != nil && !errors.Is(err, tc.reasonIs) {
					t.Fatalf("err %v is not %v", err, tc.reasonIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, out)
		})
	}
}

func TestOptionalTimeoutWarnsOnce(t *testing.T) {
	t.Parallel()
	g, _ := startScripted(t, scripted{id: "slow", timeoutMs: 100, intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{input: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"late"}`), SleepMs: 2000}}})
	for i := range 2 {
		out, err := g.Intercept(context.Background(), input, text("x"))
		if err != nil {
			t.Fatal(err)
		}
		if out.Changed {
			t.Fatal("a late answer was applied")
		}
		if want := 1 - i; len(out.Warnings) != want {
			t.Fatalf("call %d: %d warnings, want %d: %q", i, len(out.Warnings), want, out.Warnings)
		}
		if !out.Rulings[0].Skipped || !errors.Is(out.Rulings[0].Err, out.Rulings[0].Err) {
			t.Fatalf("ruling %+v", out.Rulings[0])
		}
	}
}

func TestEventsReachChainAndOwnerOnce(t *testing.T) {
	t.Parallel()
	g, log := startScripted(t,
		scripted{id: "both", intercept: []extproto.HookPoint{extproto.SessionStart}, replaces: []string{"session_policy"}},
		scripted{id: "chain", intercept: []extproto.HookPoint{extproto.SessionStart}},
		scripted{id: "other", intercept: []extproto.HookPoint{input}},
	)
	if w := g.Event(extproto.SessionStart, &extproto.SessionStartPayload{Phase: "start", SessionPath: "/s"}); len(w) != 0 {
		t.Fatal(w)
	}
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for {
		got := calls(log(), "event")
		if len(got) == 2 {
			if !(contains(got, "both session.start") && contains(got, "chain session.start")) {
				t.Fatalf("events %v", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if g.Event(extproto.AgentBeforeStart, &extproto.AgentBeforeStartPayload{SessionID: "s"}) != nil {
		t.Fatal("event without observers warned")
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// One intercept walk to one plugin allocates at most 8 objects on the
// host (issue 20): no context and timer per call, no content lease for a
// payload that travels inline. Not parallel: AllocsPerRun counts the
// whole process.
func TestInterceptAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes pooled objects allocate")
	}
	g, _ := startScripted(t, scripted{id: "a", intercept: []extproto.HookPoint{input}})
	p := text("hello")
	ctx := context.Background()
	allocs := testing.AllocsPerRun(200, func() {
		out, err := g.Intercept(ctx, input, p)
		if err != nil || len(out.Rulings) != 1 || out.Rulings[0].Err != nil {
			t.Fatalf("intercept: %v %+v", err, out.Rulings)
		}
	})
	if allocs > 8 {
		t.Fatalf("%v allocations per intercept, want at most 8", allocs)
	}
}

func TestNoRuntimeMeansNoWork(t *testing.T) {
	g, _ := newGeneration(1, nil, observers{})
	p := text("x")
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := g.Intercept(ctx, input, p); err != nil {
			t.Fatal(err)
		}
		g.Event(input, p)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per hook call with no runtime", allocs)
	}
}

func TestDeafObserverSlowsNobody(t *testing.T) {
	t.Parallel()
	g, _ := startScripted(t,
		scripted{id: "deaf", mode: "deaf", intercept: []extproto.HookPoint{extproto.FrontendEvent}},
		scripted{id: "live", intercept: []extproto.HookPoint{input}},
	)
	big := &extproto.FrontendEventPayload{Kind: "log", Text: strings.Repeat("x", 32<<10)}
	var warnings []string
	// Far more than the pipe and the 16 event slots can hold: if Event
	// ever waited for the deaf sidecar this loop would hang the test.
	for range 200 {
		warnings = append(warnings, g.Event(extproto.FrontendEvent, big)...)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "extension deaf dropped the frontend.event event: outbound notification queue is full") {
		t.Fatalf("warnings %q", warnings)
	}
	out, err := g.Intercept(context.Background(), input, text("still served"))
	if err != nil || len(out.Rulings) != 1 {
		t.Fatalf("live plugin: %+v %v", out, err)
	}
}

func TestLargePayloadRoundTripsThroughContentRefs(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("0123456789abcdef", 5<<20/16) // 5 MiB
	g, log := startScripted(t, scripted{id: "big", required: true, timeoutMs: 60000, intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{
		input: {Decision: extproto.DecisionReplace, Fetch: true, EchoRef: true},
	}})
	out, err := g.Intercept(context.Background(), input, text(huge))
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Payload.(*extproto.InputReceivePayload).Text; got != huge {
		t.Fatalf("replacement of %d bytes differs from the %d-byte payload", len(got), len(huge))
	}
	lines := log()
	if !contains(lines, "big fetched 5242891 bytes") {
		t.Fatalf("sidecar did not page the payload back: %q", lines[len(lines)-1])
	}
	for _, l := range lines {
		if strings.Contains(l, "intercept") && !strings.HasSuffix(l, " null") {
			t.Fatalf("a 5 MiB payload travelled inline: %.200s", l)
		}
	}
}

func TestBadExternalizedReplacements(t *testing.T) {
	t.Parallel()
	zeros := strings.Repeat("0", 64)
	tests := []struct {
		name   string
		raw    string
		reason extproto.Reason
	}{
		{"unknown ref", `{"decision":"replace","replacement":null,"externalized":[{"jsonPointer":"/replacement","contentRef":"content_000000000000000000000000","totalBytes":3,"sha256":"` + zeros + `"}]}`, extproto.ReasonContentRefExpired},
		{"inline and envelope", `{"decision":"replace","replacement":{"text":"x"},"externalized":[{"jsonPointer":"/replacement","contentRef":"content_000000000000000000000000","totalBytes":3,"sha256":"` + zeros + `"}]}`, extproto.ReasonProtocolError},
		{"wrong pointer", `{"decision":"replace","replacement":null,"externalized":[{"jsonPointer":"/payload","contentRef":"content_000000000000000000000000","totalBytes":3,"sha256":"` + zeros + `"}]}`, extproto.ReasonProtocolError},
		{"over the object cap", `{"decision":"replace","replacement":null,"externalized":[{"jsonPointer":"/replacement","contentRef":"content_000000000000000000000000","totalBytes":8388609,"sha256":"` + zeros + `"}]}`, extproto.ReasonFrameTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _ := startScripted(t, scripted{id: "bad", required: true, intercept: []extproto.HookPoint{input}, rules: map[extproto.HookPoint]fakeRule{
				input: {Raw: json.RawMessage(tc.raw)},
			}})
			_, err := g.Intercept(context.Background(), input, text("x"))
			if got := extproto.ReasonOf(err); got != tc.reason {
				t.Fatalf("reason %q want %q: %v", got, tc.reason, err)
			}
		})
	}
}

func TestEventReachesTheToolSlotOwner(t *testing.T) {
	t.Parallel()
	g, log := startScripted(t, scripted{id: "reader", replaces: []string{"tool:read_file"}})
	if w := g.Event(extproto.ToolBefore, &extproto.ToolBeforePayload{Name: "read_file", Arguments: `{"path":"a"}`}); len(w) != 0 {
		t.Fatal(w)
	}
	g.Event(extproto.ToolBefore, &extproto.ToolBeforePayload{Name: "list_files"})
	deadline := time.Now().Add(testenv.Scale(10 * time.Second))
	for {
		got := calls(log(), "event")
		if len(got) == 1 && got[0] == "reader tool.before" {
			break
		}
		if time.Now().After(deadline) || len(got) > 1 {
			t.Fatalf("events %v", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStrategyPointsHaveNoChain: at system_prompt.build and session.*
// only the slot owner rules; a plugin that lists the point, even a
// required one that would block, only observes it.
func TestStrategyPointsHaveNoChain(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		point   extproto.HookPoint
		slot    string
		payload extproto.Payload
	}{
		{extproto.SystemPromptBuild, "system_prompt", &extproto.SystemPromptBuildPayload{Prompt: "host", WorkspaceRoot: "/ws"}},
		{extproto.SessionStart, "session_policy", &extproto.SessionStartPayload{Phase: extproto.PhaseStart, SessionPath: "/s"}},
		{extproto.SessionLoad, "session_policy", &extproto.SessionLoadPayload{Phase: extproto.PhaseLoad, SessionPath: "/s"}},
		{extproto.SessionSave, "session_policy", &extproto.SessionSavePayload{Phase: extproto.PhaseSave, SessionPath: "/s"}},
		{extproto.SessionRotate, "session_policy", &extproto.SessionRotatePayload{Phase: extproto.PhaseRotate, SessionPath: "/s"}},
		{extproto.SessionEnd, "session_policy", &extproto.SessionEndPayload{Phase: extproto.PhaseEnd, SessionPath: "/s"}},
	} {
		for _, owned := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s owned=%v", tc.point, owned), func(t *testing.T) {
				t.Parallel()
				plugins := []scripted{{id: "watcher", required: true, intercept: []extproto.HookPoint{tc.point}, rules: map[extproto.HookPoint]fakeRule{tc.point: {Decision: extproto.DecisionBlock, Reason: "no"}}}}
				if owned {
					plugins = append(plugins, scripted{id: "owner", replaces: []string{tc.slot}})
				}
				g, log := startScripted(t, plugins...)
				if g.Rules(tc.point) != owned {
					t.Errorf("Rules = %v, want %v", g.Rules(tc.point), owned)
				}
				if !g.Observed(tc.point) {
					t.Error("not Observed")
				}
				before := len(calls(log(), "intercept"))
				out, err := g.Intercept(context.Background(), tc.point, tc.payload)
				if err != nil || out.Blocked {
					t.Fatalf("Intercept = %+v, %v; the watcher must not rule", out, err)
				}
				got := calls(log(), "intercept")[before:]
				if want := []string{"owner " + string(tc.point)}; owned != slices.Equal(got, want) || (!owned && len(got) != 0) {
					t.Fatalf("asked %v", got)
				}
				want := 1
				if owned {
					want = 2
				}
				if tc.point == extproto.SystemPromptBuild {
					want *= 2 // the build's own, then this one
				}
				deadline := time.Now().Add(testenv.Scale(10 * time.Second))
				for n := 0; n != want; n = len(slices.DeleteFunc(calls(log(), "event"), func(e string) bool { return !strings.HasSuffix(e, " "+string(tc.point)) })) {
					if time.Now().After(deadline) {
						t.Fatalf("events %v, want %d of %s", calls(log(), "event"), want, tc.point)
					}
					time.Sleep(10 * time.Millisecond)
				}
			})
		}
	}
}
