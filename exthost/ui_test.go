package exthost

import (
	"context"
	"testing"
)

func TestParseActionName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, plugin, id string
		ok             bool
	}{
		{"/hello:greet", "hello", "greet", true},
		{"/echo-provider:reset-all", "echo-provider", "reset-all", true},
		{"hello:greet", "", "", false},
		{"/hello", "", "", false},
		{"/:greet", "", "", false},
		{"/hello:Greet", "", "", false},
		{"/hello:", "", "", false},
		{"/hello:gr eet", "", "", false},
	}
	for _, tc := range tests {
		plugin, id, err := ParseActionName(tc.in)
		if (err == nil) != tc.ok || plugin != tc.plugin || id != tc.id {
			t.Errorf("ParseActionName(%q) = %q, %q, %v", tc.in, plugin, id, err)
		}
	}
}

func TestUnknownActionListsTheAvailable(t *testing.T) {
	t.Parallel()
	g, _ := newGeneration(1, nil, observers{})
	g.Actions = []Action{{Plugin: "hello", ActionID: "greet"}}
	_, err := g.RunAction(context.Background(), "s", "/hello:wave", nil)
	if err == nil || err.Error() != `unknown action "/hello:wave"; available: /hello:greet (invalid_params)` {
		t.Fatalf("got %v", err)
	}
}
