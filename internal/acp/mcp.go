package acp

import (
	"context"
	"fmt"
	"sync"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// mcpServers converts the MCP servers a client passes in session/new,
// load or resume into mcphost servers run in cwd (the reference's
// mcpSpecs rules): a name is required; stdio needs a command, http and
// sse a url; the ACP transport is refused. They are the user's own, so
// they start at once.
func mcpServers(list []acpsdk.McpServer, cwd string) ([]mcphost.Server, error) {
	var out []mcphost.Server
	for _, m := range list {
		var s mcphost.Server
		switch {
		case m.Stdio != nil:
			s = mcphost.Server{Name: m.Stdio.Name, Type: mcphost.TypeStdio, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: map[string]string{}}
			for i, e := range m.Stdio.Env {
				if e.Name == "" {
					return nil, fmt.Errorf("MCP server %q: env[%d].name is required", s.Name, i)
				}
				s.Env[e.Name] = e.Value
			}
			if s.Name != "" && s.Command == "" {
				return nil, fmt.Errorf("MCP server %q command is required", s.Name)
			}
		case m.Http != nil:
			s = mcphost.Server{Name: m.Http.Name, Type: mcphost.TypeHTTP, URL: m.Http.Url}
			if err := headers(&s, m.Http.Headers); err != nil {
				return nil, err
			}
		case m.Sse != nil:
			s = mcphost.Server{Name: m.Sse.Name, Type: mcphost.TypeSSE, URL: m.Sse.Url}
			if err := headers(&s, m.Sse.Headers); err != nil {
				return nil, err
			}
		case m.Acp != nil:
			return nil, fmt.Errorf("MCP server %q uses unsupported transport \"acp\"", m.Acp.Name)
		default:
			return nil, fmt.Errorf("MCP server: unknown transport")
		}
		if s.Name == "" {
			return nil, fmt.Errorf("MCP server name is required")
		}
		if s.Type != mcphost.TypeStdio && s.URL == "" {
			return nil, fmt.Errorf("MCP server %q url is required", s.Name)
		}
		s.Dir, s.AutoStart, s.Source = cwd, true, mcphost.SourceUser
		out = append(out, s)
	}
	return out, nil
}

func headers(s *mcphost.Server, hs []acpsdk.HttpHeader) error {
	if len(hs) == 0 {
		return nil
	}
	s.Headers = map[string]string{}
	for i, h := range hs {
		if h.Name == "" {
			return fmt.Errorf("MCP server %q: headers[%d].name is required", s.Name, i)
		}
		s.Headers[h.Name] = h.Value
	}
	return nil
}

// startMCP starts the client's MCP servers for session as, whose turns
// then offer their tools beside the packages'; nil when there are none.
// Their processes are owned as every MCP server's (mcphost's default
// spawner); the host is closed with the session (session.close). Notices
// go to this session only. Each server gets the reference's readiness
// probe (mcpProbe) so the first prompt sees its tools; one that is not
// ready by then keeps starting and its notice says how it ends.
func (s *server) startMCP(ctx context.Context, as *agent.Session, servers []mcphost.Server) (*mcphost.Host, *noticeGate) {
	if len(servers) == 0 {
		return nil, nil
	}
	id := as.ID()
	gate := &noticeGate{send: func(text string) { s.send(id, acpsdk.UpdateAgentMessageText(text)) }}
	h := mcphost.New(servers, mcphost.Options{Workspace: as.Workspace(), OnNotice: func(n mcphost.Notice) {
		s.sessionMCPNotice(id, n)
		if n.Text == "" {
			return
		}
		gate.notice(noticeText(agent.Notice{Kind: agent.NoticeMCP, Plugin: n.Server, Text: redact.String(n.Text)}))
	}})
	as.SetMCP(h)
	ctx, cancel := context.WithTimeout(ctx, mcpProbe)
	defer cancel()
	var wg sync.WaitGroup
	for _, sv := range servers {
		wg.Go(func() { _, _ = h.Connect(ctx, sv.Name) })
	}
	wg.Wait()
	return h, gate
}

// noticeGate holds a session's MCP notices until the client knows the
// session (its session/new result is written), then sends them in order.
type noticeGate struct {
	send func(text string)
	mu   sync.Mutex
	live bool
	held []string
}

func (g *noticeGate) notice(text string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.live {
		g.held = append(g.held, text)
		return
	}
	g.send(text)
}

// open sends the held notices and lets later ones through.
func (g *noticeGate) open() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.held {
		g.send(t)
	}
	g.live, g.held = true, nil
}

// mcpProbe bounds the wait for a client's MCP servers at session start
// (the reference's readiness probe).
const mcpProbe = 5 * time.Second

// close ends the agent session, then stops its MCP servers.
func (ss *session) close(ctx context.Context) error {
	err := ss.s.Close(ctx)
	ss.stopMCP()
	return err
}

// stopMCP stops the session's MCP servers (their process trees).
func (ss *session) stopMCP() {
	if ss.mcp != nil {
		ss.s.SetMCP(nil)
		_ = ss.mcp.Close()
	}
}
