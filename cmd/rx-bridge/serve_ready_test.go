package main

import (
	"os"
	"testing"
)

// TestServeRequestsRightAfterInitializedWaitForPlugins: requests sent at
// once after initialized, before the first generation is built, are
// served from the plugins, not from the empty generation 0: a session on
// a plugin model opens, rx/actions and textDocument/codeAction list the
// plugin's action.
func TestServeRequestsRightAfterInitializedWaitForPlugins(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello", "echo-provider")
	e.writeConfig("model = \"" + echoSmall + "\"\n")
	c := e.start()
	if err := c.Call(ctxT(t), "initialize", map[string]any{"processId": os.Getpid(), "capabilities": clientCaps(nil, nil)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctxT(t), "initialized", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	type result struct {
		what string
		err  error
		ok   bool
	}
	results := make(chan result, 3)
	go func() {
		var sess struct{ SessionID string }
		err := c.Call(ctxT(t), "rx/session/new", map[string]any{"model": echoSmall}, &sess)
		results <- result{"rx/session/new on " + echoSmall, err, sess.SessionID != ""}
	}()
	go func() {
		var list struct {
			Generation int64
			Actions    []struct{ Name string }
		}
		err := c.Call(ctxT(t), "rx/actions", nil, &list)
		results <- result{"rx/actions", err, list.Generation > 0 && len(list.Actions) > 0 && list.Actions[0].Name == "/hello:greet"}
	}()
	go func() {
		var actions []struct{ Title string }
		err := c.Call(ctxT(t), "textDocument/codeAction", map[string]any{
			"textDocument": map[string]any{"uri": "file:///x.go"},
			"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 0}},
			"context":      map[string]any{"diagnostics": []any{}},
		}, &actions)
		results <- result{"textDocument/codeAction", err, len(actions) == 1}
	}()
	for range 3 {
		r := <-results
		if r.err != nil || !r.ok {
			t.Errorf("%s right after initialized: err %v, served from the plugins %v", r.what, r.err, r.ok)
		}
	}
}
