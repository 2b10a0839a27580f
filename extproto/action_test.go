package extproto

import (
	"errors"
	"testing"
)

func TestActionsFind(t *testing.T) {
	t.Parallel()
	list := Actions{{Plugin: "echo-provider", ActionID: "reset-all"}, {Plugin: "hello", ActionID: "greet", Label: "Greet"}}
	tests := []struct {
		name, err string
	}{
		{"/hello:greet", ""},
		{"/echo-provider:reset-all", ""},
		{"hello:greet", `unknown action "hello:greet"; available: /echo-provider:reset-all, /hello:greet (invalid_params)`},
		{"/hello", `unknown action "/hello"; available: /echo-provider:reset-all, /hello:greet (invalid_params)`},
		{"/:greet", `unknown action "/:greet"; available: /echo-provider:reset-all, /hello:greet (invalid_params)`},
		{"/hello:Greet", `unknown action "/hello:Greet"; available: /echo-provider:reset-all, /hello:greet (invalid_params)`},
		{"/hello:wave", `unknown action "/hello:wave"; available: /echo-provider:reset-all, /hello:greet (invalid_params)`},
	}
	for _, tc := range tests {
		a, err := list.Find(tc.name)
		switch {
		case tc.err == "" && (err != nil || a.Name() != tc.name):
			t.Errorf("Find(%q) = %+v, %v", tc.name, a, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err || !errors.Is(err, ErrInvalidParams)):
			t.Errorf("Find(%q) error = %v, want %s", tc.name, err, tc.err)
		}
	}
	if _, err := Actions(nil).Find("/x:y"); err == nil || err.Error() != `unknown action "/x:y"; available: none (invalid_params)` {
		t.Errorf("empty list: %v", err)
	}
}
