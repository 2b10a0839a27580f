package exthost

import (
	"context"
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
