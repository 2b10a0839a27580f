package acp

import (
	"encoding/json"
	"slices"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// commandsFor is session id's command list: the running generation's
// plugin UI actions and slash commands, then the prompts of the
// session's own MCP servers (mcp__<server>__<prompt>; one the runtime's
// servers already serve under that name stays theirs, as the agent
// resolves it).
func (s *server) commandsFor(id string) []acpsdk.AvailableCommand {
	snap, release := s.rt.Acquire()
	defer release()
	slash := snap.Slash()
	if ss, ok := s.session(acpsdk.SessionId(id)); ok && ss.mcp != nil {
		for _, sl := range pluginrt.MCPSlash(ss.mcp) {
			if !slices.ContainsFunc(slash, func(o pluginrt.Slash) bool { return o.Name == sl.Name }) {
				slash = append(slash, sl)
			}
		}
	}
	return availableCommands(pluginrt.Commands(snap.Actions, slash))
}

// advertiseAfter sends session id's command list once the response that
// opened it (load, resume: openedMeta marks it) is written, as the
// reference orders them.
func (s *server) advertiseAfter(id string) {
	s.out.after(func() { s.advertise(id) }, openedMark(id))
}

// openedMeta is the _meta of a session/load or session/resume result:
// the session it opened, which also lets the command list follow that
// very response (advertiseAfter).
func openedMeta(id string) map[string]any {
	return map[string]any{"rx-bridge": map[string]any{"sessionId": id}}
}

func openedMark(id string) string {
	b, _ := json.Marshal(openedMeta(id)["rx-bridge"])
	return `"rx-bridge":` + string(b)
}

// readvertise sends the command list again to every open session whose
// list changed since it was last sent: after a plugin reload, and when an
// MCP server's tools or prompts change.
func (s *server) readvertise() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.sessions))
	for id := range s.sessions {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.sendCommands(id, true)
	}
}

// sessionMCPNotice refreshes session id's command list when one of its
// own MCP servers' prompts may have changed.
func (s *server) sessionMCPNotice(id string, n mcphost.Notice) {
	if n.ToolsChanged {
		go s.sendCommands(id, true)
	}
}
