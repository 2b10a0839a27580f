package mcphost

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fakeElicit records the elicitations it is asked and answers them in
// turn with the results queued.
type fakeElicit struct {
	mu      sync.Mutex
	asked   []Elicitation
	answers []ElicitResult
	err     error
}

func (f *fakeElicit) elicit(_ context.Context, e Elicitation) (ElicitResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, e)
	if f.err != nil {
		return ElicitResult{}, f.err
	}
	r := f.answers[0]
	f.answers = f.answers[1:]
	return r, nil
}

// server-everything's elicitation, roots and progress reach the host's
// client callbacks and are answered: an accepted form's values reach the
// server, a decline and a cancel are told apart, the roots are the
// workspace folders, and a long operation's progress is reported per
// call and ended.
func TestServerEverythingClientFeatures(t *testing.T) {
	t.Parallel()
	node, entry := serverEverything(t)
	ws1, ws2 := t.TempDir(), t.TempDir()
	fe := &fakeElicit{answers: []ElicitResult{
		{Action: ElicitAccept, Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}},
		{Action: ElicitDecline},
		{Action: ElicitCancel},
	}}
	var pmu sync.Mutex
	var reports []Progress
	srv := Server{Name: "everything", Command: node, Args: []string{entry, "stdio"}, Source: SourceUser}
	h, n, _ := newHost(t, []Server{srv}, Options{Workspace: ws1, Client: Client{Roots: []string{ws1, ws2}, Elicit: fe.elicit, OnProgress: func(p Progress) {
		pmu.Lock()
		reports = append(reports, p)
		pmu.Unlock()
	}}})
	ctx := ctxT(t)
	if _, err := h.Connect(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(toolNames(h.Tools()), "mcp__everything__trigger-elicitation-request") ||
		!slices.Contains(toolNames(h.Tools()), "mcp__everything__get-roots-list") {
		n.waitFor(t, "everything now has")
	}

	for i, want := range []string{"- Name: Ada Lovelace\n- Agreed to terms: true\n- Favorite Integer: 7", "declined", "cancelled"} {
		r, err := h.Call(ctx, "mcp__everything__trigger-elicitation-request", json.RawMessage(`{}`))
		if err != nil || !strings.Contains(r.Text, want) {
			t.Errorf("elicitation %d = %q, %v; want %q", i, r.Text, err, want)
		}
	}
	if len(fe.asked) != 3 {
		t.Fatalf("asked %d elicitations", len(fe.asked))
	}
	e := fe.asked[0]
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(e.Schema, &schema); err != nil || schema.Type != "object" || schema.Properties["name"] == nil || !slices.Equal(schema.Required, []string{"name"}) {
		t.Errorf("elicitation = %+v (%v)", e, err)
	}
	if e.Server != "everything" || !strings.Contains(e.Message, "Please provide inputs") {
		t.Errorf("elicitation = %+v", e)
	}

	// A failing editor answers the server with an error, not a hang.
	fe.mu.Lock()
	fe.err = errors.New("the editor went away")
	fe.mu.Unlock()
	if r, err := h.Call(ctx, "mcp__everything__trigger-elicitation-request", json.RawMessage(`{}`)); err == nil && !r.IsError {
		t.Errorf("elicitation with a failing editor = %+v", r)
	}

	r, err := h.Call(ctx, "mcp__everything__get-roots-list", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(r.Text, "URI: "+fileURI(ws1)) || !strings.Contains(r.Text, "URI: "+fileURI(ws2)) || !strings.Contains(r.Text, "(2 total)") {
		t.Errorf("get-roots-list = %+v, %v", r, err)
	}

	for range 2 {
		if r, err := h.Call(ctx, "mcp__everything__trigger-long-running-operation", json.RawMessage(`{"duration":0.3,"steps":3}`)); err != nil || r.IsError {
			t.Fatalf("long operation = %+v, %v", r, err)
		}
	}
	pmu.Lock()
	defer pmu.Unlock()
	byToken := map[string][]Progress{}
	var tokens []string
	for _, p := range reports {
		if byToken[p.Token] == nil {
			tokens = append(tokens, p.Token)
		}
		byToken[p.Token] = append(byToken[p.Token], p)
	}
	if len(tokens) != 2 {
		t.Fatalf("progress tokens %v in %+v", tokens, reports)
	}
	// A report the server sends just before its result may reach us after
	// the result (the SDK hands notifications and responses over
	// separately): it is dropped then, never shown after Done. So every
	// call shows some of its reports, in order, then Done.
	for _, tok := range tokens {
		ps := byToken[tok]
		n := len(ps) - 1
		if n < 1 || n > 3 || !ps[n].Done || slices.ContainsFunc(ps[:n], func(p Progress) bool { return p.Done }) {
			t.Errorf("reports of %s: %+v", tok, ps)
			continue
		}
		for i, p := range ps[:n] {
			if p.Progress != float64(i+1) || p.Total != 3 || p.Server != "everything" || p.Tool != "mcp__everything__trigger-long-running-operation" {
				t.Errorf("report %d: %+v", i, p)
			}
		}
	}
}
