package editorui

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Action is one UI action a plugin declared, shown as `/<plugin>:<id>`.
type Action struct {
	Plugin   string `json:"plugin"`
	ActionID string `json:"actionId"`
	Label    string `json:"label"`
}

// Name is the action's public name.
func (a Action) Name() string { return "/" + a.Plugin + ":" + a.ActionID }

// registry checks, redacts and sorts a generation's actions: a plugin with
// one invalid id loses all of its actions (SPEC §7), a duplicate id keeps
// the first.
func registry(actions []Action, redact func(string) string) []Action {
	bad := map[string]bool{}
	for _, a := range actions {
		if !extproto.ValidActionID(a.ActionID) {
			bad[a.Plugin] = true
		}
	}
	seen := map[string]bool{}
	var out []Action
	for _, a := range actions {
		if bad[a.Plugin] || strings.TrimSpace(a.Plugin) == "" || seen[a.Name()] {
			continue
		}
		seen[a.Name()] = true
		a.Label = redact(a.Label)
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y Action) int { return cmp.Compare(x.Name(), y.Name()) })
	return out
}

// Actions returns the bound generation and its actions sorted by name.
func (h *Hub) Actions() (int64, []Action) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen, slices.Clone(h.actions)
}

// Action resolves a public name in the bound generation. An unknown or
// malformed name is an invalid_params error listing what exists.
func (h *Hub) Action(name string) (Action, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, a := range h.actions {
		if a.Name() == name {
			return a, nil
		}
	}
	names := make([]string, len(h.actions))
	for i, a := range h.actions {
		names[i] = a.Name()
	}
	known := "none"
	if len(names) > 0 {
		known = strings.Join(names, ", ")
	}
	return Action{}, extproto.NewError(extproto.ReasonInvalidParams, fmt.Sprintf("unknown action %q; available: %s", name, known))
}

// declared reports whether name is an action of the bound generation; the
// caller holds h.mu.
func (h *Hub) declared(name string) bool {
	return slices.ContainsFunc(h.actions, func(a Action) bool { return a.Name() == name })
}
