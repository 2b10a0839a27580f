package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// compactable is a harness whose model has a small context window, so
// the second turn compacts the first.
func compactable(t *testing.T, steps []step, opts ...option) *harness {
	prov := newScripted(steps...)
	prov.models[0].ContextWindow = 400
	opts = append(opts, func(o *Options) { o.CompactAt, o.KeepTurns = 0.5, 1 })
	return newHarness(t, prov, opts...)
}

var long = strings.Repeat("word ", 250)

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
	summarise := reqs[1].Body
	if len(reqs) != 3 || summarise.Messages[0].Content != compactionGuidance || len(summarise.Tools) != 0 || !strings.Contains(summarise.Messages[1].Content, "[assistant]\nword word") {
		t.Fatalf("summarising request %+v", summarise.Messages)
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
