package agent

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

func TestFullTurnWithTools(t *testing.T) {
	t.Parallel()
	prov := newScripted(
		calls(
			call("c1", "read_file", map[string]any{"path": "main.go"}),
			call("c2", "search_text", map[string]any{"pattern": "TODO"}),
			call("c3", "apply_edit", map[string]any{"path": "main.go", "edits": []map[string]string{{"oldText": "// TODO", "newText": "// done"}}}),
			call("c4", "run_command", map[string]any{"command": []string{"cat", "main.go"}}),
		),
		step{chunks: []extproto.ProviderChunk{thought("all good"), text("Done: "), text("fixed it."), usage(40, 6, "stop"), done()}},
	)
	h := newHarness(t, prov)
	h.write("main.go", "package main\n// TODO\n")
	s := h.session()
	res, err := s.Prompt(ctx(t), "fix the TODO")
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop != StopEndTurn || res.Usage.PromptTokens != 60 || res.Usage.CompletionTokens != 11 {
		t.Fatalf("result %+v", res)
	}
	if data, _ := os.ReadFile(filepath.Join(h.ws, "main.go")); string(data) != "package main\n// done\n" {
		t.Errorf("main.go = %q", data)
	}
	us := h.updates.of(s.ID())
	finished := findTool(us, UpdateToolCallUpdate, ToolCompleted)
	if len(finished) != 4 {
		t.Fatalf("finished calls %+v", finished)
	}
	for i, want := range []string{"package main\n// TODO\n", "main.go:2: // TODO", "edited main.go (1 replacement)", "package main\n// done\n[exit status 0"} {
		if !strings.HasPrefix(finished[i].Output, want) {
			t.Errorf("call %d output %q, want prefix %q", i+1, finished[i].Output, want)
		}
	}
	if got := findTool(us, UpdateToolCall, ""); len(got) != 4 || got[0].Title != "Read main.go" || got[0].Kind != "read" || got[3].Kind != "execute" {
		t.Errorf("tool_call updates %+v", got)
	}
	last := us[len(us)-1]
	if last.Kind != UpdateTurnEnd || last.End.Stop != StopEndTurn || last.Turn != 1 {
		t.Errorf("last update %+v", last)
	}
	h0 := s.History()
	roles := make([]extproto.ProviderRole, len(h0))
	for i, m := range h0 {
		roles[i] = m.Role
	}
	wantRoles := []extproto.ProviderRole{"user", "assistant", "tool", "tool", "tool", "tool", "assistant"}
	if !slices.Equal(roles, wantRoles) {
		t.Fatalf("history roles %v, want %v", roles, wantRoles)
	}
	if h0[6].Content != "Done: fixed it." || h0[6].ReasoningContent != "all good" || h0[1].ToolCalls[2].ID != "c3" {
		t.Errorf("history %+v", h0)
	}
	// The second request carries the tool results and the tool schemas.
	reqs := prov.requests()
	if len(reqs) != 2 || len(reqs[1].Body.Messages) != 7 || reqs[1].Body.Messages[0].Role != extproto.RoleSystem || len(reqs[1].Body.Tools) != 6 {
		t.Fatalf("%d requests; the second has %d messages and %d tools", len(reqs), len(reqs[1].Body.Messages), len(reqs[1].Body.Tools))
	}
	if s.Usage().TotalTokens != 71 || s.Turns() != 1 {
		t.Errorf("usage %+v turns %d", s.Usage(), s.Turns())
	}
}

func TestStopReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		steps  []step
		budget int
		stop   StopReason
		open   string // the result given to a call left open
	}{
		{name: "end turn", steps: []step{answer("hi")}, stop: StopEndTurn},
		{name: "max tokens", steps: []step{{chunks: []extproto.ProviderChunk{text("cut"), call("c1", "list_files", "{}"), usage(5, 5, "length"), done()}}}, stop: StopMaxTokens, open: "not run: the response was cut at the token limit"},
		{name: "refusal", steps: []step{{chunks: []extproto.ProviderChunk{usage(5, 0, "content_filter"), done()}}}, stop: StopRefusal},
		{name: "step budget", budget: 2, steps: []step{calls(call("c1", "list_files", "{}")), calls(call("c2", "list_files", "{}"))}, stop: StopMaxTurnRequests, open: "not run: the turn reached its step budget of 2 model requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, newScripted(tc.steps...), func(o *Options) { o.Settings.Steps = tc.budget })
			s := h.session()
			res, err := s.Prompt(ctx(t), "go")
			if err != nil || res.Stop != tc.stop {
				t.Fatalf("Prompt = %+v, %v; want %s", res, err, tc.stop)
			}
			if tc.open != "" {
				hist := s.History()
				if last := hist[len(hist)-1]; last.Role != extproto.RoleTool || last.Content != tc.open {
					t.Errorf("last message %+v, want the open call answered %q", last, tc.open)
				}
			}
			if len(unansweredCalls(s.History())) != 0 {
				t.Error("a tool call is left unanswered")
			}
		})
	}
}

func TestCallsThatCannotRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, newScripted(
		calls(
			call("c1", "no_such_tool", "{}"),
			call("c2", "read_file", "[1,2]"),
			call("c3", "read_file", map[string]any{"path": "../outside"}),
		),
		answer("ok"),
	))
	s := h.session()
	if _, err := s.Prompt(ctx(t), "go"); err != nil {
		t.Fatal(err)
	}
	failed := findTool(h.updates.of(s.ID()), UpdateToolCallUpdate, ToolFailed)
	if len(failed) != 3 {
		t.Fatalf("failed calls %+v", failed)
	}
	for i, want := range []string{`unknown tool "no_such_tool"; the tools are apply_edit, list_files, read_file, run_command, search_text, todo_write`, "the arguments are not a JSON object", `path "../outside" is outside the workspace`} {
		if !strings.HasPrefix(failed[i].Output, want) {
			t.Errorf("call %d: %q, want %q", i+1, failed[i].Output, want)
		}
	}
}

func TestProviderFailureFailsTurnWithoutFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		step   step
		reason extproto.Reason
	}{
		{"interrupted mid-stream", step{chunks: []extproto.ProviderChunk{text("partial")}, fail: extproto.NewError(extproto.ReasonProviderInterrupted, "provider sidecar crashed: token=ghp_abcdefghijklmnopqrstuvwxyz0123456789")}, extproto.ReasonProviderInterrupted},
		{"failed", step{fail: extproto.NewError(extproto.ReasonProviderFailed, "HTTP 500")}, extproto.ReasonProviderFailed},
		{"ended without done", step{chunks: []extproto.ProviderChunk{text("x")}}, extproto.ReasonProviderInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov := newScripted(tc.step)
			h := newHarness(t, prov)
			s := h.session()
			_, err := s.Prompt(ctx(t), "go")
			if err == nil || extproto.ReasonOf(err) != tc.reason || !strings.Contains(err.Error(), "model test/m1") {
				t.Fatalf("err = %v, want %s naming the model", err, tc.reason)
			}
			if strings.Contains(err.Error(), "ghp_") {
				t.Errorf("error not redacted: %v", err)
			}
			if reqs := prov.requests(); len(reqs) != 1 || reqs[0].Ref != "test/m1" {
				t.Fatalf("requests %+v: the failed model must not be retried or replaced", reqs)
			}
			us := h.updates.of(s.ID())
			end := us[len(us)-1]
			if end.Kind != UpdateTurnEnd || end.End.Error == "" || end.End.Stop != "" {
				t.Errorf("turn end %+v", end)
			}
			// Only the user's message is kept: a failed stream is never
			// persisted as an answer.
			if hist := s.History(); len(hist) != 1 || hist[0].Role != extproto.RoleUser {
				t.Errorf("history %+v", hist)
			}
			// The session stays usable.
			prov.push(answer("back"))
			if res, err := s.Prompt(ctx(t), "again"); err != nil || res.Stop != StopEndTurn {
				t.Errorf("next turn: %+v, %v", res, err)
			}
		})
	}
}

func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	prov := newScripted(calls(call("c1", "list_files", "{}")), step{chunks: []extproto.ProviderChunk{text("thinking about it")}, hang: true})
	prov.started = make(chan providers.Request, 2)
	h := newHarness(t, prov)
	s := h.session()
	go func() {
		<-prov.started
		<-prov.started
		s.Cancel()
	}()
	res, err := s.Prompt(ctx(t), "go")
	if err != nil || res.Stop != StopCancelled {
		t.Fatalf("Prompt = %+v, %v; want cancelled", res, err)
	}
	if prov.cancelled != 1 {
		t.Errorf("the provider saw %d cancels, want 1", prov.cancelled)
	}
	us := h.updates.of(s.ID())
	if end := us[len(us)-1]; end.Kind != UpdateTurnEnd || end.End.Stop != StopCancelled {
		t.Errorf("turn end %+v", end)
	}
	// The partial answer was shown but not persisted; the first round is.
	hist := s.History()
	if len(hist) != 3 || hist[2].Role != extproto.RoleTool {
		t.Fatalf("history %+v", hist)
	}
	prov.push(answer("fine"))
	if res, err := s.Prompt(ctx(t), "again"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("turn after cancel: %+v, %v", res, err)
	}
}

func TestBusyAndClosed(t *testing.T) {
	t.Parallel()
	prov := newScripted(step{hang: true})
	prov.started = make(chan providers.Request, 1)
	h := newHarness(t, prov)
	s := h.session()
	errc := make(chan error, 1)
	go func() { _, err := s.Prompt(ctx(t), "one"); errc <- err }()
	<-prov.started
	if _, err := s.Prompt(ctx(t), "two"); !errors.Is(err, ErrBusy) {
		t.Errorf("second prompt: %v", err)
	}
	// Close cancels the running turn and waits for it.
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Errorf("cancelled turn: %v", err)
	}
	if _, err := s.Prompt(ctx(t), "three"); !errors.Is(err, ErrSessionClosed) {
		t.Errorf("prompt after close: %v", err)
	}
}
