package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// TestHookOrder records, with a real sidecar that intercepts all 17
// points, the order a session's life walks them.
func TestHookOrder(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "rec", intercepts: allPoints})
	prov := newScripted(calls(call("c1", "list_files", "{}")), answer("done"), answer("again"))
	h := newHarness(t, prov, onPlugins(ps), func(o *Options) { o.MaxTranscriptBytes = 1 })
	s := h.session()
	if _, err := s.Prompt(ctx(t), "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prompt(ctx(t), "second"); err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.reopen().Load(ctx(t), id); err != nil {
		t.Fatal(err)
	}
	want := []string{
		// turn 1: one round with a tool call, one that answers
		"input.receive", "agent.before_start",
		"context.prepare", "provider.request", "provider.response",
		"permission.decision", "tool.before", "tool.after",
		"context.prepare", "provider.request", "provider.response",
		// turn 2
		"input.receive", "agent.before_start",
		"context.prepare", "provider.request", "provider.response",
	}
	if got := ps.intercepts(t, "rec"); !slices.Equal(got, want) {
		t.Fatalf("intercept order\ngot  %v\nwant %v", got, want)
	}
	// Every point is observed, in order, the strategy points only as
	// events: system_prompt.build once when the generation was built, the
	// session points as they happen. Stored updates reach frontend.event
	// observers too. Events are asynchronous, so wait.
	wantEvents := []string{
		"system_prompt.build", "session.start",
		"input.receive", "agent.before_start",
		"context.prepare", "provider.request", "provider.response",
		"permission.decision", "tool.before", "tool.after",
		"context.prepare", "provider.request", "provider.response",
		"session.save", "session.rotate",
		"input.receive", "agent.before_start",
		"context.prepare", "provider.request", "provider.response",
		"session.save", "session.rotate",
		"session.end",
		"session.load",
	}
	var events []string
	deadline := time.Now().Add(10 * time.Second)
	for {
		events = ps.lines(t, "rec event ")
		if count(events, "frontend.event") > 0 && len(events)-count(events, "frontend.event") == len(wantEvents) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %v", events)
		}
		time.Sleep(10 * time.Millisecond)
	}
	events = slices.DeleteFunc(events, func(e string) bool { return e == "frontend.event" })
	if !slices.Equal(events, wantEvents) {
		t.Fatalf("event order\ngot  %v\nwant %v", events, wantEvents)
	}
}

func count(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

// TestBlockAtEachPoint blocks each turn point in turn: the turn ends
// with refusal, the redacted reason is shown, and nothing past the block
// happens.
func TestBlockAtEachPoint(t *testing.T) {
	t.Parallel()
	const secret = "api_key=sk-live-0123456789abcdefSECRETVALUE"
	for _, tc := range []struct {
		point extproto.HookPoint
		// history is the roles persisted by the time the turn ends.
		history string
		// wrote reports whether apply_edit's file exists.
		wrote bool
	}{
		{extproto.InputReceive, "", false},
		{extproto.AgentBeforeStart, "", false},
		{extproto.ContextPrepare, "user", false},
		{extproto.ProviderRequestPt, "user", false},
		{extproto.ProviderResponsePt, "user", false},
		{extproto.PermissionDecision, "user assistant tool", false},
		{extproto.ToolBefore, "user assistant tool", false},
		{extproto.ToolAfter, "user assistant tool", true},
	} {
		t.Run(string(tc.point), func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "guard", intercepts: []extproto.HookPoint{tc.point}, rules: map[extproto.HookPoint]rule{
				tc.point: {Decision: extproto.DecisionBlock, Reason: "policy says no, " + secret},
			}})
			prov := newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "out.txt", "content": "x"})), answer("done"))
			h := newHarness(t, prov, onPlugins(ps))
			s := h.session()
			res, err := s.Prompt(ctx(t), "go")
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop != StopRefusal || res.Block == nil || res.Block.Point != tc.point || res.Block.Plugin != "guard" {
				t.Fatalf("result %+v", res)
			}
			if strings.Contains(res.Block.Reason, "SECRETVALUE") || !strings.HasPrefix(res.Block.Reason, "policy says no") {
				t.Errorf("reason not redacted: %q", res.Block.Reason)
			}
			var shown bool
			for _, u := range h.updates.of(s.ID()) {
				if u.Kind == UpdateNotice && u.Notice.Kind == NoticeBlocked {
					shown = strings.Contains(u.Notice.Text, "extension guard blocked "+string(tc.point)+": policy says no") && !strings.Contains(u.Notice.Text, "SECRETVALUE")
				}
			}
			if !shown {
				t.Error("the block is not shown (redacted)")
			}
			var roles []string
			for _, m := range s.History() {
				roles = append(roles, string(m.Role))
			}
			if got := strings.Join(roles, " "); got != tc.history {
				t.Errorf("history %q, want %q", got, tc.history)
			}
			if _, err := os.Stat(filepath.Join(h.ws, "out.txt")); (err == nil) != tc.wrote {
				t.Errorf("out.txt exists=%v, want %v", err == nil, tc.wrote)
			}
			if len(unansweredCalls(s.History())) != 0 {
				t.Error("the blocked turn left a call unanswered")
			}
		})
	}
}

// TestReplaceAtEachPoint replaces the payload at each turn point and
// checks the turn follows the replacement.
func TestReplaceAtEachPoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		point       extproto.HookPoint
		replacement string
		tool        string
		check       func(t *testing.T, h *harness, s *Session)
	}{
		{extproto.InputReceive, `{"text":"rewritten input"}`, "", func(t *testing.T, h *harness, s *Session) {
			if got := s.History()[0].Content; got != "rewritten input" {
				t.Errorf("user message %q", got)
			}
		}},
		{extproto.ContextPrepare, `{"messages":[{"role":"user","content":"only this"}]}`, "", func(t *testing.T, h *harness, s *Session) {
			msgs := h.prov.requests()[0].Body.Messages
			if len(msgs) != 1 || msgs[0].Content != "only this" {
				t.Errorf("request messages %+v", msgs)
			}
			if s.History()[0].Content != "go" {
				t.Error("context.prepare changed the stored history")
			}
		}},
		{extproto.ProviderRequestPt, `{"request":{"messages":[{"role":"user","content":"swapped"}],"tools":[],"maxTokens":7}}`, "", func(t *testing.T, h *harness, s *Session) {
			body := h.prov.requests()[0].Body
			if body.MaxTokens != 7 || len(body.Tools) != 0 || body.Messages[0].Content != "swapped" {
				t.Errorf("request %+v", body)
			}
		}},
		{extproto.ProviderResponsePt, `{"text":"replaced answer"}`, "", func(t *testing.T, h *harness, s *Session) {
			hist := s.History()
			if len(hist) != 2 || hist[1].Content != "replaced answer" || len(hist[1].ToolCalls) != 0 {
				t.Errorf("history %+v", hist)
			}
		}},
		{extproto.ToolBefore, `{"name":"list_files","arguments":"{}"}`, "read_file", func(t *testing.T, h *harness, s *Session) {
			if got := s.History()[2]; got.Name != "read_file" || !strings.Contains(got.Content, "a.txt") {
				t.Errorf("tool result %+v; want the list_files output", got)
			}
			updates := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolCompleted)
			if len(updates) != 1 || updates[0].Name != "list_files" || updates[0].Title != "List ." {
				t.Errorf("shown call %+v", updates)
			}
		}},
		{extproto.ToolAfter, `{"name":"read_file","result":"from the plugin","isError":true}`, "read_file", func(t *testing.T, h *harness, s *Session) {
			if got := s.History()[2].Content; got != "from the plugin" {
				t.Errorf("tool result %q", got)
			}
			if failed := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolFailed); len(failed) != 1 {
				t.Errorf("isError did not turn the result into a failure: %+v", failed)
			}
		}},
	} {
		t.Run(string(tc.point), func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "rewriter", intercepts: []extproto.HookPoint{tc.point}, rules: map[extproto.HookPoint]rule{
				tc.point: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(tc.replacement), Tool: tc.tool},
			}})
			steps := []step{answer("plain answer")}
			if tc.tool != "" {
				steps = []step{calls(call("c1", "read_file", map[string]any{"path": "a.txt"})), answer("done")}
			}
			h := newHarness(t, newScripted(steps...), onPlugins(ps))
			h.write("a.txt", "content")
			s := h.session()
			if _, err := s.Prompt(ctx(t), "go"); err != nil {
				t.Fatal(err)
			}
			tc.check(t, h, s)
		})
	}
}

func TestPermissionByExtensions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		user     PermissionOutcome
		decision extproto.InterceptDecision
		ran      bool
		audited  bool
	}{
		{"extension allow overrides a user deny", PermissionDeny, extproto.DecisionAllow, true, true},
		{"extension deny overrides a user allow", PermissionAllow, extproto.DecisionDeny, false, false},
		{"continue keeps the user's allow", PermissionAllow, extproto.DecisionContinue, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "policy", intercepts: []extproto.HookPoint{extproto.PermissionDecision}, rules: map[extproto.HookPoint]rule{
				extproto.PermissionDecision: {Decision: tc.decision, Reason: "by policy"},
			}})
			h := newHarness(t, newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "f.txt", "content": "x"})), answer("ok")), onPlugins(ps), withApproval(ApproveAsk))
			h.editor.answers = func(PermissionRequest) PermissionOutcome { return tc.user }
			s := h.session()
			if _, err := s.Prompt(ctx(t), "go"); err != nil {
				t.Fatal(err)
			}
			_, err := os.Stat(filepath.Join(h.ws, "f.txt"))
			if ran := err == nil; ran != tc.ran {
				t.Errorf("ran=%v, want %v", ran, tc.ran)
			}
			var audit string
			var decided Permission
			for _, u := range h.updates.of(s.ID()) {
				if u.Kind == UpdateNotice && u.Notice.Kind == NoticeAudit {
					audit = u.Notice.Text
				}
				if u.Kind == UpdatePermissionOutcome {
					decided = *u.Permission
				}
			}
			wantNote := `extension policy allowed the tool "apply_edit" overriding the host deny`
			if tc.audited {
				if audit != wantNote || !slices.Contains(ps.auditNotes(), wantNote) {
					t.Errorf("audit notice %q, manager audit %v", audit, ps.auditNotes())
				}
			} else if audit != "" {
				t.Errorf("unexpected audit %q", audit)
			}
			if tc.decision != extproto.DecisionContinue && (decided.DecidedBy != DecidedByExtension || decided.Plugin != "policy" || decided.By() != "extension policy") {
				t.Errorf("decided by %+v", decided)
			}
		})
	}
}

// TestToolSlotOwner: the owner of tool:read_file serves the call when it
// replaces at tool.before, lets the built-in run when it continues, and
// fails the call (not the turn) when it takes the call but gives no
// result.
func TestToolSlotOwner(t *testing.T) {
	t.Parallel()
	args := `{"path":"missing.txt"}`
	for _, tc := range []struct {
		name   string
		rules  map[extproto.HookPoint]rule
		result string
		failed bool
		served string
	}{
		{"owner serves", map[extproto.HookPoint]rule{
			extproto.ToolBefore: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"name":"read_file","arguments":` + jsonString(args) + `}`)},
			extproto.ToolAfter:  {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"name":"read_file","result":"served by the owner"}`)},
		}, "served by the owner", false, "owner"},
		{"owner continues: the built-in runs", nil, "missing.txt: no such file or directory", true, ""},
		{"owner takes the call without a result", map[extproto.HookPoint]rule{
			extproto.ToolBefore: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"name":"read_file","arguments":` + jsonString(args) + `}`)},
		}, "extension owner took read_file over at tool.before but gave no result at tool.after", true, "owner"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "owner", replaces: []string{"tool:read_file"}, rules: tc.rules})
			h := newHarness(t, newScripted(calls(call("c1", "read_file", args)), answer("ok")), onPlugins(ps))
			s := h.session()
			if _, err := s.Prompt(ctx(t), "go"); err != nil {
				t.Fatal(err)
			}
			if got := s.History()[2].Content; got != tc.result {
				t.Errorf("result %q, want %q", got, tc.result)
			}
			us := h.updates.of(s.ID())
			final := findTool(us, UpdateToolCallUpdate, "")
			last := final[len(final)-1]
			if (last.Status == ToolFailed) != tc.failed || last.ServedBy != tc.served {
				t.Errorf("shown %+v", last)
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestPluginFailures: a slot owner's failure fails the turn naming it; an
// optional plugin's failure is warned about and skipped.
func TestPluginFailures(t *testing.T) {
	t.Parallel()
	t.Run("slot owner", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "ctxowner", replaces: []string{"context"}, rules: map[extproto.HookPoint]rule{
			extproto.ContextPrepare: {Fail: "broken with token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"},
		}})
		prov := newScripted(answer("never"))
		h := newHarness(t, prov, onPlugins(ps))
		s := h.session()
		_, err := s.Prompt(ctx(t), "go")
		if err == nil || !strings.Contains(err.Error(), "extension ctxowner failed at context.prepare") || strings.Contains(err.Error(), "ghp_") {
			t.Fatalf("err = %v", err)
		}
		if len(prov.requests()) != 0 {
			t.Error("the provider was called after the owner failed")
		}
		us := h.updates.of(s.ID())
		if end := us[len(us)-1]; end.End == nil || !strings.Contains(end.End.Error, "extension ctxowner") {
			t.Errorf("turn end %+v", end)
		}
	})
	t.Run("optional interceptor", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "flaky", intercepts: []extproto.HookPoint{extproto.InputReceive}, rules: map[extproto.HookPoint]rule{
			extproto.InputReceive: {Fail: "oops"},
		}})
		h := newHarness(t, newScripted(answer("fine")), onPlugins(ps))
		s := h.session()
		res, err := s.Prompt(ctx(t), "go")
		if err != nil || res.Stop != StopEndTurn {
			t.Fatalf("Prompt = %+v, %v", res, err)
		}
		var warned bool
		for _, u := range h.updates.of(s.ID()) {
			warned = warned || (u.Kind == UpdateNotice && u.Notice.Kind == NoticeWarning && strings.Contains(u.Notice.Text, "extension flaky failed at input.receive"))
		}
		if !warned {
			t.Error("no warning shown")
		}
	})
}

// TestSessionPointBlocks covers the session.* points outside a turn.
func TestSessionPointBlocks(t *testing.T) {
	t.Parallel()
	t.Run("session.start refuses the session", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "keeper", replaces: []string{"session_policy"}, rules: map[extproto.HookPoint]rule{
			extproto.SessionStart: {Decision: extproto.DecisionBlock, Reason: "no sessions today"},
		}})
		h := newHarness(t, newScripted(), onPlugins(ps))
		if _, err := h.agent.New(ctx(t), h.ws, "test/m1"); err == nil || !strings.Contains(err.Error(), "no sessions today") {
			t.Fatalf("New = %v", err)
		}
		if all, _ := h.agent.List(""); len(all) != 0 {
			t.Errorf("a refused session left a transcript: %+v", all)
		}
	})
	t.Run("session.load refuses, a failure only warns", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, newScripted(answer("a")))
		s := h.session()
		if _, err := s.Prompt(ctx(t), "hi"); err != nil {
			t.Fatal(err)
		}
		id := s.ID()
		_ = s.Close(ctx(t))
		ps := startPlugins(t, pluginSpec{id: "keeper", replaces: []string{"session_policy"}, rules: map[extproto.HookPoint]rule{
			extproto.SessionLoad: {Decision: extproto.DecisionBlock, Reason: "archived"},
		}})
		h.opts.Runtime = onManager(ps.mgr, h.opts.Runtime)
		if _, err := h.reopen().Load(ctx(t), id); err == nil || !strings.Contains(err.Error(), "archived") {
			t.Fatalf("Load = %v", err)
		}
		flaky := startPlugins(t, pluginSpec{id: "flaky", replaces: []string{"session_policy"}, rules: map[extproto.HookPoint]rule{
			extproto.SessionLoad: {Fail: "disk on fire"},
		}})
		h.opts.Runtime = onManager(flaky.mgr, h.opts.Runtime)
		h.updates.reset(id)
		if _, err := h.reopen().Load(ctx(t), id); err != nil {
			t.Fatalf("Load with a failing session.load: %v", err)
		}
		us := h.updates.of(id)
		if last := us[len(us)-1]; last.Kind != UpdateNotice || !strings.Contains(last.Notice.Text, "disk on fire") {
			t.Errorf("last update %+v, want the session.load failure as a warning", last)
		}
	})
	t.Run("session.rotate block skips rotation", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "keeper", replaces: []string{"session_policy"}, rules: map[extproto.HookPoint]rule{
			extproto.SessionRotate: {Decision: extproto.DecisionBlock, Reason: "keep one file"},
		}})
		h := newHarness(t, newScripted(answer("a")), onPlugins(ps), func(o *Options) { o.MaxTranscriptBytes = 1 })
		s := h.session()
		if _, err := s.Prompt(ctx(t), "hi"); err != nil {
			t.Fatal(err)
		}
		if matches, _ := filepath.Glob(filepath.Join(h.home, SessionsDir, s.ID()+".*.jsonl")); len(matches) != 0 {
			t.Errorf("rotated despite the block: %v", matches)
		}
	})
}

// TestReplacementsShownRedacted: what a plugin writes in a replacement
// reaches the model as written but is shown (and stored as shown)
// redacted: the rewritten user message, the replaced response in its
// notice, the arguments of a call changed at tool.before.
func TestReplacementsShownRedacted(t *testing.T) {
	t.Parallel()
	const secret = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"
	for _, tc := range []struct {
		point       extproto.HookPoint
		replacement string
		tool        string
		shown       UpdateKind
		model       func(h *harness, s *Session) string
	}{
		{extproto.InputReceive, `{"text":"use api_key=` + secret + `"}`, "", UpdateUserMessage,
			func(h *harness, s *Session) string { return s.History()[0].Content }},
		{extproto.ProviderResponsePt, `{"text":"the key is ` + secret + `"}`, "", UpdateNotice,
			func(h *harness, s *Session) string { return s.History()[1].Content }},
		{extproto.ToolBefore, `{"name":"read_file","arguments":"{\"path\":\"` + secret + `.txt\"}"}`, "read_file", UpdateToolCallUpdate,
			func(h *harness, s *Session) string { return s.History()[2].Content }},
	} {
		t.Run(string(tc.point), func(t *testing.T) {
			t.Parallel()
			ps := startPlugins(t, pluginSpec{id: "rewriter", intercepts: []extproto.HookPoint{tc.point}, rules: map[extproto.HookPoint]rule{
				tc.point: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(tc.replacement), Tool: tc.tool},
			}})
			steps := []step{answer("plain answer")}
			if tc.tool != "" {
				steps = []step{calls(call("c1", "read_file", map[string]any{"path": "a.txt"})), answer("done")}
			}
			h := newHarness(t, newScripted(steps...), onPlugins(ps))
			h.write("a.txt", "content")
			h.write(secret+".txt", "secret file content")
			s := h.session()
			if _, err := s.Prompt(ctx(t), "go"); err != nil {
				t.Fatal(err)
			}
			if got := tc.model(h, s); tc.tool == "" && !strings.Contains(got, secret) {
				t.Errorf("the model did not get the replacement as written: %q", got)
			} else if tc.tool != "" && !strings.Contains(got, "secret file content") {
				t.Errorf("the tool did not run on the replaced arguments: %q", got)
			}
			shown := false
			for _, u := range h.updates.of(s.ID()) {
				b, _ := json.Marshal(u)
				if strings.Contains(string(b), secret) {
					t.Errorf("update shows the secret: %s", b)
				}
				shown = shown || u.Kind == tc.shown && (strings.Contains(string(b), "****") || strings.Contains(string(b), "[redacted]"))
			}
			if !shown {
				t.Errorf("no %s update shows the redacted replacement", tc.shown)
			}
		})
	}
}
