package pluginrt

import (
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Command is one entry of a front end's command list: a plugin UI action
// (`/<plugin>:<action>`, run through extension/ui/action) or a slash
// command the agent resolves (Slash). The LSP front end lists them as
// rx/actions, the ACP front end as available_commands_update.
type Command struct {
	// Name is typed as is: "/" + the action's or slash command's name.
	Name string
	// Action is set for a plugin UI action, Slash for a slash command.
	Action *extproto.Action
	Slash  *Slash
}

// Commands merges a generation's UI actions and slash commands into one
// list sorted by name, an action before a slash command of the same name.
// Slash descriptions and argument hints are redacted (action labels
// already are).
func Commands(actions extproto.Actions, slash []Slash) []Command {
	out := make([]Command, 0, len(actions)+len(slash))
	for i := range actions {
		out = append(out, Command{Name: actions[i].Name(), Action: &actions[i]})
	}
	for _, sl := range slash {
		sl.Description, sl.ArgHint = redact.String(sl.Description), redact.String(sl.ArgHint)
		out = append(out, Command{Name: "/" + sl.Name, Slash: &sl})
	}
	slices.SortStableFunc(out, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Commands is the snapshot's command list: its UI actions and slash
// commands (Commands).
func (s *Snapshot) Commands() []Command { return Commands(s.Actions, s.Slash()) }
