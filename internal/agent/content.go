package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// kindOther is ACP's tool kind for what is neither a read, an edit, a
// search nor an execution: skills, slash commands, MCP tools.
const kindOther tools.Kind = "other"

// toolSet is the tools a round offers the model: the host's (built-ins
// unless Options.Tools), then the pinned generation's slash_command,
// run_skill and read_skill (plugincontent), its MCP servers' tools and
// the session's own MCP servers' (Session.SetMCP) as they are now (a
// server that started, failed or changed its list since the last round
// shows here). A tool of a package never hides a host
// tool of the same name.
//
// The tools keep the order the session first offered them in, and a
// tool offered for the first time (an MCP server that connected late,
// plan mode's exit_plan_mode) comes after them: providers put the tool
// definitions ahead of the conversation in the prompt, so a tool sorted
// into the middle would leave their prompt cache only the tools before
// it. A tool that comes back (a server restarted) takes its old place.
func (t *turn) toolSet() *tools.Set {
	if t.sub != nil {
		return t.sub.tools
	}
	set := t.offered().Arranged(t.s.toolRank)
	for _, sc := range set.Schemas() {
		if _, ok := t.s.toolRank[sc.Name]; !ok {
			if t.s.toolRank == nil {
				t.s.toolRank = map[string]int{}
			}
			t.s.toolRank[sc.Name] = len(t.s.toolRank)
		}
	}
	return set
}

// offered is the tools of toolSet, in name order.
func (t *turn) offered() *tools.Set {
	set := t.baseToolSet()
	if t.s.Mode() != ModePlan {
		return set
	}
	// Plan mode offers exit_plan_mode (plan.go) beside the others.
	if _, taken := set.Lookup(ToolExitPlanMode); taken {
		return set
	}
	var list []tools.Tool
	for _, sc := range set.Schemas() {
		tool, _ := set.Lookup(sc.Name)
		list = append(list, tool)
	}
	return tools.NewSet(append(list, planTool{})...)
}

func (t *turn) baseToolSet() *tools.Set {
	host := t.s.a.opts.Tools
	md, mcp := t.g.Markdown(), t.g.MCP()
	if md == nil && mcp == nil && t.mcp == nil {
		return host
	}
	var list []tools.Tool
	for _, sc := range host.Schemas() {
		tool, _ := host.Lookup(sc.Name)
		list = append(list, tool)
	}
	add := func(tool tools.Tool) {
		if _, taken := host.Lookup(tool.Schema().Name); !taken {
			list = append(list, tool)
		}
	}
	if md != nil {
		for _, ct := range md.Tools(t.contentEnv()) {
			add(contentTool{ct})
		}
	}
	if mcp != nil {
		for _, mt := range mcp.Tools() {
			add(mcpTool{h: mcp, t: mt})
		}
	}
	if t.mcp != nil {
		for _, mt := range t.mcp.Tools() {
			add(mcpTool{h: t.mcp, t: mt})
		}
	}
	return tools.NewSet(list...)
}

// contentEnv is what the pinned generation's skills run with: this turn
// as the subagent runner, the MCP host's tools of a plugin's own servers
// as its bindings, and the session's workspace (when local) for a Claude
// command's "@path" references.
func (t *turn) contentEnv() plugincontent.Env {
	env := plugincontent.Env{Runner: t}
	if ws := t.s.ws(); ws.Local() {
		roots := ws.Roots()
		env.Workspace, env.Folders = roots[0], roots[1:]
	}
	if h := t.g.MCP(); h != nil {
		env.MCPBindings = func(plugin string) []plugincontent.MCPBinding { return mcpBindings(h, plugin) }
	}
	return env
}

// mcpBindings are the tools of plugin's own MCP servers, as a plugin
// skill's body and allow-list are bound to them.
func mcpBindings(h *mcphost.Host, plugin string) []plugincontent.MCPBinding {
	owned := map[string]bool{}
	for _, st := range h.Status() {
		if st.Source == mcphost.SourcePackage && st.Owner == plugin {
			owned[st.Name] = true
		}
	}
	var out []plugincontent.MCPBinding
	for _, mt := range h.Tools() {
		if !owned[mt.Server] || isConnectStub(mt) {
			continue
		}
		out = append(out, plugincontent.MCPBinding{
			Package: plugin, Server: mt.Server, RawName: mt.RawName, VisibleName: mt.RawName,
			CallableName: mt.Name, CapabilityID: "mcp-tool:" + mt.Server + "/" + mt.RawName,
		})
	}
	return out
}

// isConnectStub reports whether mt is the single stand-in of a server
// whose tools are not known yet.
func isConnectStub(mt mcphost.Tool) bool {
	return mt.Placeholder && mt.RawName == "connect" && strings.HasSuffix(mt.Name, "__connect")
}

// contentTool is a plugincontent tool (slash_command, run_skill,
// read_skill) as the agent runs tools.
type contentTool struct{ t plugincontent.Tool }

func (c contentTool) Schema() extproto.ProviderToolSchema { return c.t.Schema }
func (c contentTool) ReadOnly() bool                      { return c.t.ReadOnly }

func (c contentTool) Kind() tools.Kind {
	if c.t.ReadOnly {
		return tools.KindRead
	}
	return kindOther
}

// Describe titles the call after its skill or command: "run_skill
// review".
func (c contentTool) Describe(args json.RawMessage) (string, []string) {
	var a struct {
		Name    string `json:"name"`
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	if what := strings.TrimSpace(a.Name + a.Command); what != "" {
		return c.t.Schema.Name + " " + what, nil
	}
	return c.t.Schema.Name, nil
}

func (c contentTool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) (string, error) {
	return c.t.Call(ctx, args)
}

// mcpTool is one of an MCP server's tools, run through the MCP host.
type mcpTool struct {
	h *mcphost.Host
	t mcphost.Tool
}

func (m mcpTool) Schema() extproto.ProviderToolSchema {
	params := m.t.InputSchema
	if len(params) == 0 {
		params = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return extproto.ProviderToolSchema{Name: m.t.Name, Description: m.t.Description, Parameters: params}
}

func (m mcpTool) ReadOnly() bool   { return m.t.ReadOnly }
func (m mcpTool) Kind() tools.Kind { return kindOther }

func (m mcpTool) Describe(json.RawMessage) (string, []string) { return m.t.Name, nil }

// Run calls the tool. The host bounds the result (mcphost
// Options.MaxResultBytes, the size of run_command's output); a tool error
// and a server that cannot be reached are both failed calls the model
// sees.
func (m mcpTool) Run(ctx context.Context, _ *tools.Env, args json.RawMessage) (string, error) {
	res, err := m.h.Call(ctx, m.t.Name, args)
	if err != nil {
		return "", err
	}
	if res.IsError {
		return "", errors.New(res.Text)
	}
	return res.Text, nil
}

// thirdParty marks the MCP tools: a server the bridge does not own
// writes their results, which may echo the env, arguments or headers it
// was configured with.
func (mcpTool) thirdParty() bool { return true }

// thirdPartyTool reports whether tool's results come from a process the
// bridge does not own, and so are redacted before anyone sees them.
func thirdPartyTool(tool tools.Tool) bool {
	tp, ok := tool.(interface{ thirdParty() bool })
	return ok && tp.thirdParty()
}

// MCPNotice shows an MCP server's notice — it failed to start, stopped,
// or its tools changed — in every open session, as a NoticeMCP notice
// whose Plugin is the server's name (a failure's text already names it).
// The MCP servers belong to the runtime generation every session shares,
// so a host sets pluginrt.Options.MCPNotice to a func that calls this on
// its Agent. It may be called from any goroutine and never calls back
// into the MCP host. Between turns the notice is numbered with the last
// turn; a session's next round re-reads the tools, so the model never
// sees a tool that is gone.
func (a *Agent) MCPNotice(n mcphost.Notice) {
	a.mu.Lock()
	open := make([]*Session, 0, len(a.sessions))
	for _, s := range a.sessions {
		open = append(open, s)
	}
	a.mu.Unlock()
	for _, s := range open {
		s.notify(NoticeMCP, n.Server, n.Text)
	}
}

// notify shows a notice outside the turn pipeline.
func (s *Session) notify(kind NoticeKind, plugin, text string) {
	s.jmu.Lock()
	turn := s.st.turns
	s.jmu.Unlock()
	s.j.emit(Update{Kind: UpdateNotice, Turn: turn, Notice: &Notice{Kind: kind, Plugin: plugin, Text: redact.String(text)}})
}
