package agent

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// TestTurnWaitsForStartingMCPServers: on a cold schema cache a server is
// starting when the first prompt comes; the turn waits for it, so the
// model's first request offers its tools (not the connect stand-in), and
// says so; a server that is still starting when the bound ends is named
// (issue 27 item 12).
func TestTurnWaitsForStartingMCPServers(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, mode string
		wait       time.Duration
		tool       string // offered in the first request
		notices    []string
	}{
		{"ready", "mcp", 0, "mcp__srv__echo", []string{"waiting for MCP servers to start: srv"}},
		{"still starting", "mcp-silent", time.Millisecond, "mcp__srv__connect",
			[]string{"waiting for MCP servers to start: srv", "MCP servers still starting after 1ms: srv; their tools are offered once they are ready"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host := mcphost.New([]mcphost.Server{{Name: "srv", Command: exe, Env: map[string]string{envChild: tc.mode}, AutoStart: true, Source: mcphost.SourceUser}}, mcphost.Options{})
			t.Cleanup(func() { _ = host.Close() })
			prov := newScripted(answer("done"))
			h := newHarness(t, prov, withContent(nil, host), func(o *Options) { o.MCPStartWait = tc.wait })
			s := h.session()
			if res, err := s.Prompt(ctx(t), "hello"); err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
			if names := toolSchemaNames(prov.requests()[0]); !slices.Contains(names, tc.tool) {
				t.Errorf("the first request offers %v, want %s", names, tc.tool)
			}
			var got []string
			for _, n := range notices(h.updates.of(s.ID()), NoticeMCP) {
				if strings.Contains(n, "MCP servers") {
					got = append(got, n)
				}
			}
			// A server quicker than the harness is ready before the
			// prompt: nothing to wait for, nothing said.
			if tc.wait == 0 && len(got) == 0 {
				return
			}
			if !slices.Equal(got, tc.notices) {
				t.Errorf("notices = %q, want %q", got, tc.notices)
			}
		})
	}
}
