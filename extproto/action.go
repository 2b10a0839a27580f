package extproto

import "strings"

// Action is one UI action of a running plugin, as the host resolved it
// from the plugin's handshake (UIActionDecl): its public name is
// `/<plugin>:<actionId>` (SPEC §7). Every front end shows and resolves
// this one type; the host builds the list (exthost) and nobody re-parses
// it.
type Action struct {
	Plugin   string
	ActionID string
	// Label is redacted by the host that built the list.
	Label string
}

// Name is the action's public name, `/<plugin>:<actionId>`.
func (a Action) Name() string { return "/" + a.Plugin + ":" + a.ActionID }

// Actions is the action list of one generation, sorted by name, names
// unique.
type Actions []Action

// Find resolves a public name. An unknown or malformed name is an
// invalid_params error listing what exists (docs/EDITOR_PROTOCOL.md §2.3).
func (l Actions) Find(name string) (Action, error) {
	for _, a := range l {
		if a.Name() == name {
			return a, nil
		}
	}
	known := "none"
	if len(l) > 0 {
		names := make([]string, len(l))
		for i, a := range l {
			names[i] = a.Name()
		}
		known = strings.Join(names, ", ")
	}
	return Action{}, Errorf(ReasonInvalidParams, "unknown action %q; available: %s", name, known)
}
