package agent

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// compactable is a harness whose model has a small context window, so
// the second turn compacts the first; the request that summarises it
// (the tool schemas and the long answer) fits in the window.
func compactable(t *testing.T, steps []step, opts ...option) *harness {
	return compactableIn(t, 5000, steps, opts...)
}

func compactableIn(t *testing.T, window int, steps []step, opts ...option) *harness {
	prov := newScripted(steps...)
	prov.models[0].ContextWindow = window
	opts = append(opts, func(o *Options) { o.CompactAt, o.KeepTurns = 0.4, 1 })
	return newHarness(t, prov, opts...)
}

var long = strings.Repeat("word ", 2000)

// TestCompaction: the summarising request continues the session's (its
// system prompt, tools and messages, the guidance last, so a prompt
// cache serves it: issue 32 item 4), and the summary replaces the older
// messages.
func TestCompaction(t *testing.T) {
	t.Parallel()
	h := compactable(t, []step{answer(long), answer("the summary"), answer("second answer")})
	s := h.session()
	for _, p := range []string{"first", "second"} {
		if _, err := s.Prompt(ctx(t), p); err != nil {
			t.Fatal(err)
		}
	}
	hist := s.History()
	if len(hist) != 3 || hist[0].Content != summaryPrefix+"the summary" || hist[1].Content != "second" || hist[2].Content != "second answer" {
		t.Fatalf("history after compaction %+v", hist)
	}
	reqs := h.prov.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first, summarise := reqs[0].Body, reqs[1].Body
	want := append(slices.Clone(first.Messages),
		extproto.ProviderMessage{Role: extproto.RoleAssistant, Content: long},
		extproto.ProviderMessage{Role: extproto.RoleUser, Content: compactionGuidance})
	if !reflect.DeepEqual(summarise.Messages, want) || !reflect.DeepEqual(summarise.Tools, first.Tools) || len(first.Tools) == 0 {
		t.Fatalf("summarising request %+v", summarise)
	}
	// The compacted request sends the summary and the kept turn only.
	if msgs := reqs[2].Body.Messages; len(msgs) != 3 || msgs[1].Content != hist[0].Content || msgs[2].Content != "second" {
		t.Errorf("request after compaction has %d messages", len(msgs))
	}
	var noticed bool
	for _, u := range h.updates.of(s.ID()) {
		noticed = noticed || (u.Kind == UpdateNotice && u.Notice.Kind == NoticeCompaction && strings.HasPrefix(u.Notice.Text, "compacted 2 older messages"))
	}
	if !noticed {
		t.Error("no compaction notice")
	}
	// The summary's usage counts.
	if s.Usage().PromptTokens != 30 {
		t.Errorf("usage %+v", s.Usage())
	}
	id := s.ID()
	_ = s.Close(ctx(t))
	loaded, err := h.reopen().Load(ctx(t), id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded.History(), hist) {
		t.Errorf("history after reload %+v", loaded.History())
	}
}

func TestCompactionHooks(t *testing.T) {
	t.Parallel()
	t.Run("block at prepare skips compaction", func(t *testing.T) {
		t.Parallel()
		ps := startPlugins(t, pluginSpec{id: "keep", intercepts: []extproto.HookPoint{extproto.CompactionPrepare}, rules: map[extproto.HookPoint]rule{
			extproto.CompactionPrepare: {Decision: extproto.DecisionBlock, Reason: "keep everything"},
		}})
		h := compactable(t, []step{answer(long), answer("second answer")}, onPlugins(ps))
		s := h.session()
		for _, p := range []string{"first", "second"} {
			if res, err := s.Prompt(ctx(t), p); err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
		}
		if len(s.History()) != 4 || len(h.prov.requests()) != 2 {
			t.Errorf("compacted despite the block: %d messages, %d requests", len(s.History()), len(h.prov.requests()))
		}
	})
	t.Run("compaction slot owner replaces the summary", func(t *testing.T) {
		t.Parallel()
		replacement, _ := json.Marshal(extproto.CompactionCompletePayload{Summary: "the owner's summary"})
		ps := startPlugins(t, pluginSpec{id: "summariser", replaces: []string{"compaction"}, rules: map[extproto.HookPoint]rule{
			extproto.CompactionComplete: {Decision: extproto.DecisionReplace, Replacement: replacement},
		}})
		h := compactable(t, []step{answer(long), answer("the model's summary"), answer("second answer")}, onPlugins(ps))
		s := h.session()
		for _, p := range []string{"first", "second"} {
			if _, err := s.Prompt(ctx(t), p); err != nil {
				t.Fatal(err)
			}
		}
		if got := s.History()[0].Content; got != summaryPrefix+"the owner's summary" {
			t.Errorf("summary %q", got)
		}
		if got := ps.intercepts(t, "summariser"); !equalStrings(got, []string{"compaction.prepare", "compaction.complete"}) {
			t.Errorf("owner consulted at %v", got)
		}
	})
}

// TestCompactionTranscriptFallback: when the continuing request would not
// fit the window, when compaction.prepare left messages a provider
// rejects with tools (a call without its result), or when the model
// calls tools instead of summarising, the summariser gets the messages
// as a plain transcript under the guidance, with no tools, as before
// issue 32; the summary is used as ever.
func TestCompactionTranscriptFallback(t *testing.T) {
	t.Parallel()
	split, _ := json.Marshal(extproto.CompactionPreparePayload{Guidance: "summarise", Messages: []extproto.ProviderMessage{
		{Role: extproto.RoleUser, Content: "first"},
		{Role: extproto.RoleAssistant, ToolCalls: []extproto.ProviderToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}},
	}})
	callOnly := step{chunks: []extproto.ProviderChunk{text("Let me check first."), call("c9", "read_file", `{"path":"a"}`), usage(20, 5, "tool_calls"), done()}}
	for _, tc := range []struct {
		name     string
		window   int
		steps    []step
		plugins  []pluginSpec
		guidance string
		render   string // in the transcript
		requests int
	}{
		{name: "too big for the window", window: 2600, steps: []step{answer(long), answer("the summary"), answer("second answer")},
			guidance: compactionGuidance, render: "[assistant]\nword word", requests: 3},
		{name: "a call split from its result", window: 5000, steps: []step{answer(long), answer("the summary"), answer("second answer")},
			plugins: []pluginSpec{{id: "cut", replaces: []string{"compaction"}, rules: map[extproto.HookPoint]rule{
				extproto.CompactionPrepare: {Decision: extproto.DecisionReplace, Replacement: split},
			}}},
			guidance: "summarise", render: `(calls read_file {"path":"a"})`, requests: 3},
		{name: "the model calls tools", window: 5000, steps: []step{answer(long), callOnly, answer("the summary"), answer("second answer")},
			guidance: compactionGuidance, render: "[assistant]\nword word", requests: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []option
			if tc.plugins != nil {
				opts = append(opts, onPlugins(startPlugins(t, tc.plugins...)))
			}
			h := compactableIn(t, tc.window, tc.steps, opts...)
			s := h.session()
			for _, p := range []string{"first", "second"} {
				if res, err := s.Prompt(ctx(t), p); err != nil || res.Stop != StopEndTurn {
					t.Fatalf("Prompt = %+v, %v", res, err)
				}
			}
			reqs := h.prov.requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.requests)
			}
			summarise := reqs[tc.requests-2].Body
			if m := summarise.Messages; len(m) != 2 || m[0].Content != tc.guidance || len(summarise.Tools) != 0 || !strings.Contains(m[1].Content, tc.render) {
				t.Errorf("summarising request %+v", summarise)
			}
			if hist := s.History(); len(hist) != 3 || hist[0].Content != summaryPrefix+"the summary" {
				t.Errorf("history after compaction %+v", hist)
			}
			if ran := findTool(h.updates.of(s.ID()), UpdateToolCall, ""); len(ran) != 0 {
				t.Errorf("the summariser's call was shown: %+v", ran)
			}
		})
	}
}

func equalStrings(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestEstimateTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		msgs []extproto.ProviderMessage
		want int
	}{
		{nil, 0},
		{[]extproto.ProviderMessage{{Role: "user", Content: "abcd"}}, 5},
		{[]extproto.ProviderMessage{{Role: "user", Content: strings.Repeat("x", 400)}}, 104},
		{[]extproto.ProviderMessage{{Role: "assistant", ToolCalls: []extproto.ProviderToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`}}}}, 4 + (2+9+12+8+3)/4},
	} {
		if got := estimateTokens(tc.msgs); got != tc.want {
			t.Errorf("estimateTokens(%+v) = %d, want %d", tc.msgs, got, tc.want)
		}
	}
}
