package bridge

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// An MCP server's OAuth page opens through window/showDocument with
// external true; an editor without showDocument, or one that did not
// open it, is an error (the engine shows the URL instead).
func TestOpenExternal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		caps    map[string]any
		success bool
		wantErr bool
	}{
		{"opened", map[string]any{"window": map[string]any{"showDocument": map[string]any{"support": true}}}, true, false},
		{"refused", map[string]any{"window": map[string]any{"showDocument": map[string]any{"support": true}}}, false, true},
		{"no showDocument", map[string]any{}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, c, _ := inProcess(t)
			got := make(chan json.RawMessage, 1)
			c.Handle("window/showDocument", func(_ context.Context, p json.RawMessage) (any, error) {
				got <- p
				return map[string]any{"success": tc.success}, nil
			})
			if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": tc.caps}, nil); err != nil {
				t.Fatal(err)
			}
			const u = "http://127.0.0.1:9/authorize?client_id=c&state=s"
			err := s.openExternal(ctxT(t), u)
			if (err != nil) != tc.wantErr {
				t.Errorf("openExternal = %v", err)
			}
			if tc.caps["window"] == nil {
				return
			}
			p := <-got
			var params struct {
				URI      string
				External bool
			}
			if json.Unmarshal(p, &params) != nil || params.URI != u || !params.External {
				t.Errorf("showDocument %s", p)
			}
		})
	}
}

// An MCP call's progress is work-done progress: created at its first
// report, begun with the server and tool, reported with a percentage,
// ended with the call.
func TestMCPProgress(t *testing.T) {
	t.Parallel()
	s, c, _ := inProcess(t)
	c.Handle("window/workDoneProgress/create", func(context.Context, json.RawMessage) (any, error) { return nil, nil })
	if err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}}}, nil); err != nil {
		t.Fatal(err)
	}
	p := mcphost.Progress{Server: "everything", Tool: "mcp__everything__long", Token: "rx-mcp-1", Total: 4}
	for _, step := range []struct {
		p    mcphost.Progress
		want []string
	}{
		{mcphost.Progress{Progress: 1, Message: "one"}, []string{`"kind":"begin"`, `"title":"everything: mcp__everything__long"`, `"message":"1/4 one"`}},
		{mcphost.Progress{Progress: 2}, []string{`"kind":"report"`, `"percentage":50`, `"message":"2/4"`}},
		{mcphost.Progress{Done: true}, []string{`"kind":"end"`}},
	} {
		q := p
		q.Progress, q.Message, q.Done = step.p.Progress, step.p.Message, step.p.Done
		s.mcpProgress(q)
		if _, err := c.Wait(ctxT(t), "$/progress", func(raw json.RawMessage) bool {
			for _, w := range step.want {
				if !strings.Contains(string(raw), w) {
					return false
				}
			}
			return true
		}); err != nil {
			t.Fatalf("no $/progress with %q: %v", step.want, err)
		}
	}
}
