package pluginrt

import (
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

// SlashSource says what a slash command runs.
type SlashSource string

// The slash command sources.
const (
	SlashCommand   SlashSource = "command"   // a commands file
	SlashPrompt    SlashSource = "prompt"    // a prompts file (served as a command)
	SlashSkill     SlashSource = "skill"     // a skill, inlined or run as a subagent
	SlashAgent     SlashSource = "agent"     // an agent definition (a subagent)
	SlashMCPPrompt SlashSource = "mcpPrompt" // an MCP server's prompt
)

// Slash is one command a user can type as "/" + Name in a chat: what
// completion, rx/actions, the editors' palettes and chat's /help list.
// Typing it sends the line to the agent, which resolves it.
type Slash struct {
	// Name is typed after "/": kit:review, kit:agent:reviewer,
	// mcp__server__prompt, or a user's or project's own short name.
	Name        string
	Source      SlashSource
	Description string
	// ArgHint says what arguments it takes, "" when it says nothing.
	ArgHint string
	// Plugin is the owning plugin's installed name ("" for the user's
	// and project's own; the server's owner for a package's MCP prompt).
	Plugin string
	// Subagent marks a skill or agent that runs as a nested agent turn.
	Subagent bool
}

// Slash lists the snapshot's slash commands in the reference's completion
// order: commands (prompts among them), then skills and agents, then MCP
// prompts; each group by name. Hidden short aliases are left out.
func (s *Snapshot) Slash() []Slash {
	var out []Slash
	if md := s.Markdown(); md != nil {
		for _, c := range md.Commands() {
			src := SlashCommand
			if c.Kind == plugincontent.KindPrompts {
				src = SlashPrompt
			}
			out = append(out, Slash{Name: c.Name, Source: src, Description: c.Description, ArgHint: c.ArgHint, Plugin: c.Plugin})
		}
		for _, sk := range md.SlashSkills() {
			src := SlashSkill
			if sk.Agent {
				src = SlashAgent
			}
			out = append(out, Slash{Name: sk.SlashName(), Source: src, Description: sk.Description, Plugin: sk.Plugin, Subagent: sk.Subagent})
		}
	}
	return append(out, MCPSlash(s.MCP())...)
}

// MCPSlash lists the prompts of h's servers as slash commands
// (mcp__<server>__<prompt>, the arguments as the hint: <required>
// [optional]); nil for a nil host. The runtime's host and a session's own
// (an ACP client's servers) list theirs alike.
func MCPSlash(h *mcphost.Host) []Slash {
	if h == nil {
		return nil
	}
	var out []Slash
	owners := map[string]string{}
	for _, st := range h.Status() {
		owners[st.Name] = st.Owner
	}
	for _, p := range h.Prompts() {
		var hint []string
		for _, a := range p.Arguments {
			if a.Required {
				hint = append(hint, "<"+a.Name+">")
			} else {
				hint = append(hint, "["+a.Name+"]")
			}
		}
		out = append(out, Slash{Name: p.Name, Source: SlashMCPPrompt, Description: p.Description, ArgHint: strings.Join(hint, " "), Plugin: owners[p.Server]})
	}
	return out
}
