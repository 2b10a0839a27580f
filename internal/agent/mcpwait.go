package agent

import (
	"context"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// mcpStartWait bounds how long a turn waits for MCP servers that are
// still starting before its first round (Options.MCPStartWait): by
// default a server's own start bound (mcphost.DefaultStartupTimeout), so
// the wait never outlasts a start that follows the default.
func (t *turn) mcpStartWait() time.Duration {
	if w := t.s.a.opts.MCPStartWait; w > 0 {
		return w
	}
	return mcphost.DefaultStartupTimeout
}

// waitMCP waits, before the turn's first round, for the MCP servers that
// are starting without known tools (a cold schema cache: the model would
// see only their connect stub and call tools that do not exist yet), as
// Claude Code waits for its servers before the first query. The user is
// told which servers are awaited and, if the bound ends first, which are
// still starting; their tools join a later round once they are ready.
// The wait ends early when the turn is cancelled.
func (t *turn) waitMCP(ctx context.Context) {
	var hosts []*mcphost.Host
	for _, h := range []*mcphost.Host{t.g.MCP(), t.mcp} {
		if h != nil && len(h.Starting()) > 0 {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return
	}
	var names []string
	for _, h := range hosts {
		names = append(names, h.Starting()...)
	}
	if len(names) == 0 {
		return
	}
	t.notice(NoticeMCP, "", "", locale.T("waiting for MCP servers to start: %s", strings.Join(names, ", ")))
	bound := t.mcpStartWait()
	wctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	var still []string
	for _, h := range hosts {
		still = append(still, h.WaitStarting(wctx)...)
	}
	if len(still) > 0 && ctx.Err() == nil {
		t.notice(NoticeMCP, "", "", locale.T("MCP servers still starting after %s: %s; their tools are offered once they are ready", bound, strings.Join(still, ", ")))
	}
}
