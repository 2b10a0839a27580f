package exthost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// TestGenerationActions: the generation's action list is the one every
// front end shows and resolves: sorted by name, one entry per name (the
// first declaration wins, the repeat is a warning), labels redacted, and
// a plugin with an invalid id loses all its actions.
func TestGenerationActions(t *testing.T) {
	t.Parallel()
	side := func(id string, decls ...extproto.UIActionDecl) *Sidecar {
		return &Sidecar{Plugin: &Plugin{ID: id}, Init: extproto.InitializeResult{UIActions: decls}}
	}
	g, err := newGeneration(1, []*Sidecar{
		side("zed", extproto.UIActionDecl{ActionID: "b", Label: "B"}),
		side("hello", extproto.UIActionDecl{ActionID: "greet", Label: "Greet password=hunter2hunter2"}, extproto.UIActionDecl{ActionID: "greet", Label: "dup"}),
		side("bad", extproto.UIActionDecl{ActionID: "ok"}, extproto.UIActionDecl{ActionID: "Not_OK"}),
	}, observers{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range g.Actions {
		got = append(got, a.Name()+" "+a.Label)
	}
	if s := fmt.Sprint(got); strings.Contains(s, "hunter2") || s != "[/hello:greet Greet password=**** /zed:b B]" {
		t.Errorf("actions = %s", s)
	}
	if w := strings.Join(g.Warnings, "\n"); !strings.Contains(w, `extension bad: UI action id "Not_OK"`) || !strings.Contains(w, `extension hello: UI action "greet" is declared twice; the first is kept`) {
		t.Errorf("warnings = %s", w)
	}
}

func TestUnknownActionListsTheAvailable(t *testing.T) {
	t.Parallel()
	g, _ := newGeneration(1, nil, observers{})
	g.Actions = extproto.Actions{{Plugin: "hello", ActionID: "greet"}}
	_, err := g.Action("/hello:wave")
	if err == nil || err.Error() != `unknown action "/hello:wave"; available: /hello:greet (invalid_params)` {
		t.Fatalf("got %v", err)
	}
	_, err = g.RunAction(context.Background(), "s", extproto.Action{Plugin: "gone", ActionID: "x"}, nil)
	if err == nil || err.Error() != "extension gone is not running (internal)" {
		t.Fatalf("got %v", err)
	}
}

// TestUITrafficStampedWithAnotherGenerationIsDropped: a sidecar may stamp
// its UI traffic only with its own generation. A publish or a question
// that claims another one (a sidecar of a generation being replaced
// posing as its successor) never reaches the front end: the publish is
// not accepted, the question is cancelled. This is the engine's check,
// the same for every front end.
func TestUITrafficStampedWithAnotherGenerationIsDropped(t *testing.T) {
	t.Parallel()
	var reached []string
	s := &Sidecar{Plugin: &Plugin{ID: "p"}, Generation: 2, services: Services{
		UIPublish: func(_ context.Context, _ *Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
			reached = append(reached, fmt.Sprintf("publish %d", p.Generation))
			return &extproto.UIPublishResult{Accepted: true}, nil
		},
		UIRequest: func(_ context.Context, _ *Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
			reached = append(reached, fmt.Sprintf("request %d", p.Generation))
			return &extproto.UIRequestResult{Cancelled: false, Values: map[string]json.RawMessage{"value": json.RawMessage(`"x"`)}}, nil
		},
	}}
	s.Plugin.Capabilities = []extproto.Capability{extproto.CapUI}
	publish := func(gen int) string {
		return fmt.Sprintf(`{"sessionId":"s","generation":%d,"surfaceId":"st","kind":"status","payload":{"label":"x"}}`, gen)
	}
	ask := func(gen int) string {
		return fmt.Sprintf(`{"sessionId":"s","generation":%d,"surfaceId":"q","kind":"confirm","payload":{"title":"ok?"}}`, gen)
	}
	for _, tc := range []struct {
		method, params string
		want           string
	}{
		{extproto.MethodUIPublish, publish(3), `{"accepted":false}`},
		{extproto.MethodUIRequest, ask(1), `{"cancelled":true}`},
		{extproto.MethodUIPublish, publish(2), `{"accepted":true}`},
		{extproto.MethodUIRequest, ask(2), `{"cancelled":false,"values":{"value":"x"}}`},
	} {
		res, err := s.handleRequest(context.Background(), tc.method, json.RawMessage(tc.params))
		b, _ := json.Marshal(res)
		if err != nil || string(b) != tc.want {
			t.Errorf("%s %s = %s, %v; want %s", tc.method, tc.params, b, err, tc.want)
		}
	}
	if fmt.Sprint(reached) != "[publish 2 request 2]" {
		t.Errorf("the front end was reached by %v; want only the sidecar's own generation", reached)
	}
}
