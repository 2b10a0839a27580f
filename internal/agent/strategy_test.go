package agent

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
)

// eventually waits until cond holds; events are asynchronous. The bound
// only ends a test that would otherwise hang: nothing is timed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// systemMessages is the system message of every request the model got.
func systemMessages(t *testing.T, h *harness) []string {
	t.Helper()
	var out []string
	for _, r := range h.prov.requests() {
		if m := r.Body.Messages[0]; m.Role == extproto.RoleSystem {
			out = append(out, m.Content)
		} else {
			t.Fatalf("a request without a system message: %+v", r.Body.Messages)
		}
	}
	return out
}

// TestSystemPromptIsAStrategy: system_prompt.build is not a chain. Only
// the system_prompt owner rules, once per runtime build, before any turn;
// the plugins that list the point observe the final prompt; an unchanged
// reload asks nobody; a failing owner fails the reload and the running
// generation keeps serving (PROTOCOL_DETAILS §4.2, §5).
func TestSystemPromptIsAStrategy(t *testing.T) {
	t.Parallel()
	sysBuild := []extproto.HookPoint{extproto.SystemPromptBuild}
	wrap := func(w string) map[extproto.HookPoint]rule {
		return map[extproto.HookPoint]rule{extproto.SystemPromptBuild: {Decision: extproto.DecisionReplace, Wrap: w}}
	}

	t.Run("an owner that also intercepts wraps once per build", func(t *testing.T) {
		t.Parallel()
		// Reasonix's full SDK example both intercepts the point and
		// owns the slot.
		ps := startPlugins(t, pluginSpec{id: "both", intercepts: sysBuild, replaces: []string{"system_prompt"}, rules: wrap("[both] ")})
		if got := ps.intercepts(t, "both"); !slices.Equal(got, []string{"system_prompt.build"}) {
			t.Fatalf("asked %v while the generation was built, want system_prompt.build once", got)
		}
		h := newHarness(t, newScripted(answer("one"), answer("two")), onPlugins(ps))
		s := h.session()
		for _, text := range []string{"first", "second"} {
			if _, err := s.Prompt(ctx(t), text); err != nil {
				t.Fatal(err)
			}
		}
		if got := systemMessages(t, h); !slices.Equal(got, []string{"[both] " + hostPrompt, "[both] " + hostPrompt}) {
			t.Errorf("system messages %q, want the wrapper exactly once in each", got)
		}
		if got := ps.intercepts(t, "both"); count(got, "system_prompt.build") != 1 {
			t.Errorf("asked at system_prompt.build %d times, want once per build", count(got, "system_prompt.build"))
		}
		eventually(t, "the owner observes the final prompt", func() bool {
			return slices.Equal(ps.lines(t, "both saw prompt "), []string{"[both] " + hostPrompt})
		})
	})

	t.Run("a plugin that only intercepts it only observes it", func(t *testing.T) {
		t.Parallel()
		watcher := map[extproto.HookPoint]rule{extproto.SystemPromptBuild: {Decision: extproto.DecisionBlock, Reason: "no prompt for you"}}
		ps := startPlugins(t,
			pluginSpec{id: "rewriter", intercepts: sysBuild, rules: wrap("[rewriter] ")},
			pluginSpec{id: "watcher", required: true, intercepts: sysBuild, rules: watcher})
		h := newHarness(t, newScripted(answer("ok")), onPlugins(ps))
		res, err := h.session().Prompt(ctx(t), "go")
		if err != nil || res.Stop != StopEndTurn {
			t.Fatalf("Prompt = %+v, %v; a plugin that only intercepts system_prompt.build cannot block it", res, err)
		}
		if got := systemMessages(t, h); !slices.Equal(got, []string{hostPrompt}) {
			t.Errorf("system messages %q, want the host's prompt untouched", got)
		}
		for _, id := range []string{"rewriter", "watcher"} {
			if got := ps.intercepts(t, id); len(got) != 0 {
				t.Errorf("%s was asked to rule: %v", id, got)
			}
			eventually(t, id+" observes the prompt", func() bool {
				return slices.Equal(ps.lines(t, id+" saw prompt "), []string{hostPrompt})
			})
		}
	})

	t.Run("an unchanged reload asks nobody; a changed one asks again", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "both", intercepts: sysBuild, replaces: []string{"system_prompt"}, rules: wrap("[both] ")})
		first := ps.gen.SystemPrompt
		g, err := ps.mgr.Load(ctx(t), ps.list)
		if err != nil {
			t.Fatal(err)
		}
		if g.SystemPrompt != first || first != "[both] "+hostPrompt {
			t.Errorf("prompt after an unchanged reload %q, want %q byte for byte", g.SystemPrompt, first)
		}
		if got := ps.intercepts(t, "both"); len(got) != 1 {
			t.Errorf("an unchanged reload asked the owner: %v", got)
		}
		// The new sidecars observe the prompt they serve with.
		eventually(t, "the reloaded owner observes the prompt", func() bool { return len(ps.lines(t, "both saw prompt ")) == 2 })

		changed := *ps.list[0]
		changed.Env = maps.Clone(changed.Env)
		changed.Env[envRules] = `{"system_prompt.build":{"decision":"replace","wrap":"[new] "}}`
		g, err = ps.mgr.Load(ctx(t), []*exthost.Plugin{&changed})
		if err != nil {
			t.Fatal(err)
		}
		if g.SystemPrompt != "[new] "+hostPrompt {
			t.Errorf("prompt after a changed reload %q", g.SystemPrompt)
		}
		if got := ps.intercepts(t, "both"); len(got) != 2 {
			t.Errorf("a changed reload asked %v, want the owner once more", got)
		}
	})

	t.Run("a failing owner fails the reload; the old generation keeps serving", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "both", intercepts: sysBuild, replaces: []string{"system_prompt"}, rules: wrap("[both] ")})
		failing := *ps.list[0]
		failing.Env = maps.Clone(failing.Env)
		failing.Env[envRules] = `{"system_prompt.build":{"fail":"prompt store is down"}}`
		_, err := ps.mgr.Load(ctx(t), []*exthost.Plugin{&failing})
		if err == nil || !strings.Contains(err.Error(), "extension both failed at system_prompt.build") || !strings.Contains(err.Error(), "prompt store is down") {
			t.Fatalf("reload with a failing owner = %v", err)
		}
		if cur := ps.mgr.Current(); cur != ps.gen {
			t.Fatalf("the failed reload replaced generation %d with %d", ps.gen.ID, cur.ID)
		}
		h := newHarness(t, newScripted(answer("ok")), onPlugins(ps))
		if _, err := h.session().Prompt(ctx(t), "go"); err != nil {
			t.Fatal(err)
		}
		if got := systemMessages(t, h); !slices.Equal(got, []string{"[both] " + hostPrompt}) {
			t.Errorf("system messages %q", got)
		}
	})
}

// TestSessionPointsAreBroadcasts: session.start/load/save/rotate/end are
// observed by the plugins that list them; only the session_policy owner
// rules (PROTOCOL_DETAILS §4.2).
func TestSessionPointsAreBroadcasts(t *testing.T) {
	t.Parallel()
	sessionPoints := []extproto.HookPoint{extproto.SessionStart, extproto.SessionSave, extproto.SessionRotate, extproto.SessionEnd, extproto.SessionLoad}

	t.Run("interceptors observe while the session_policy owner rules", func(t *testing.T) {
		t.Parallel()
		refuse := map[extproto.HookPoint]rule{}
		for _, pt := range sessionPoints {
			refuse[pt] = rule{Decision: extproto.DecisionBlock, Reason: "watchers cannot refuse"}
		}
		ps := startPlugins(t,
			pluginSpec{id: "watcher", required: true, intercepts: sessionPoints, rules: refuse},
			pluginSpec{id: "policy", replaces: []string{"session_policy"}})
		h := newHarness(t, newScripted(answer("a")), onPlugins(ps), func(o *Options) { o.MaxTranscriptBytes = 1 })
		s, err := h.agent.New(ctx(t), h.ws, "test/m1")
		if err != nil {
			t.Fatalf("New = %v; a plugin that only intercepts session.start cannot refuse the session", err)
		}
		if _, err := s.Prompt(ctx(t), "hi"); err != nil {
			t.Fatal(err)
		}
		id := s.ID()
		if err := s.Close(ctx(t)); err != nil {
			t.Fatal(err)
		}
		if _, err := h.reopen().Load(ctx(t), id); err != nil {
			t.Fatalf("Load = %v", err)
		}
		if got := ps.intercepts(t, "watcher"); len(got) != 0 {
			t.Errorf("the watcher was asked to rule: %v", got)
		}
		want := []string{"session.start", "session.save", "session.rotate", "session.end", "session.load"}
		if got := ps.intercepts(t, "policy"); !slices.Equal(got, want) {
			t.Errorf("the session_policy owner ruled on %v, want %v", got, want)
		}
		for _, id := range []string{"watcher", "policy"} {
			eventually(t, id+" observes every session point", func() bool {
				var got []string
				for _, e := range ps.lines(t, id+" event ") {
					if strings.HasPrefix(e, "session.") {
						got = append(got, e)
					}
				}
				return slices.Equal(got, want)
			})
		}
	})

	t.Run("a crashed watcher does not stop a new session", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "watcher", required: true, intercepts: []extproto.HookPoint{extproto.SessionStart, extproto.FrontendEvent}})
		sc, ok := ps.gen.Sidecar("watcher")
		if !ok {
			t.Fatal("no watcher sidecar")
		}
		ps.gen.Event(extproto.FrontendEvent, &extproto.FrontendEventPayload{Kind: "crash"})
		select {
		case <-sc.Crashed():
		case <-ctx(t).Done():
			t.Fatal("the watcher did not crash")
		}
		h := newHarness(t, newScripted(answer("a")), onPlugins(ps))
		s, err := h.agent.New(ctx(t), h.ws, "test/m1")
		if err != nil {
			t.Fatalf("New = %v; a crashed plugin that only watches sessions must not stop one", err)
		}
		var warned bool
		for _, u := range h.updates.of(s.ID()) {
			warned = warned || (u.Kind == UpdateNotice && strings.Contains(u.Notice.Text, "extension watcher dropped the session.start event"))
		}
		if !warned {
			t.Errorf("the missed event is not shown: %+v", h.updates.of(s.ID()))
		}
	})
}
