// Package slots owns replacement-slot ownership: it parses the slots a
// manifest claims, keeps the single owner of each slot across every plugin
// of a runtime generation (a second claim is an error naming both plugins),
// and answers who owns the slot ruling a hook point, a tool or a provider
// ref. It knows nothing about processes or the wire; the extension host
// invokes the owners it names.
package slots

import (
	"fmt"
	"sort"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Parse parses one slot string (`system_prompt`, `tool:<name>`,
// `provider:<ref>`, ...).
func Parse(s string) (extproto.Slot, error) { return extproto.ParseSlot(s) }

// ConflictError is the fatal error of two plugins claiming one slot.
type ConflictError struct {
	Slot   extproto.Slot
	Owners [2]string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("extension: replacement slot %q claimed by [plugin %s plugin %s]", e.Slot.String(), e.Owners[0], e.Owners[1])
}

// Registry maps each claimed slot to its single owner. The zero value is
// an empty registry ready to use; it is not safe for concurrent Claim, but
// lookups on a registry no longer being built are.
type Registry struct {
	owners map[string]string // slot wire form -> plugin id
}

// Claim records plugin as the owner of slot. A slot already owned by
// another plugin is a *ConflictError; the same plugin claiming twice is a
// no-op.
func (r *Registry) Claim(slot extproto.Slot, plugin string) error {
	if r.owners == nil {
		r.owners = make(map[string]string)
	}
	key := slot.String()
	if prev, ok := r.owners[key]; ok && prev != plugin {
		owners := [2]string{prev, plugin}
		sort.Strings(owners[:])
		return &ConflictError{Slot: slot, Owners: owners}
	}
	r.owners[key] = plugin
	return nil
}

// Owner returns the owner of slot.
func (r *Registry) Owner(slot extproto.Slot) (string, bool) {
	p, ok := r.owners[slot.String()]
	return p, ok
}

// OwnerAt returns the owner of the named slot that rules point, if any
// (system_prompt at system_prompt.build, session_policy at session.*, ...).
func (r *Registry) OwnerAt(point extproto.HookPoint) (string, bool) {
	kind, ok := extproto.SlotForPoint(point)
	if !ok {
		return "", false
	}
	return r.Owner(extproto.Slot{Kind: kind})
}

// ToolOwner returns the owner of `tool:<name>`.
func (r *Registry) ToolOwner(name string) (string, bool) {
	return r.Owner(extproto.Slot{Kind: extproto.SlotTool, Arg: name})
}

// ProviderOwner returns the owner of `provider:<ref>`.
func (r *Registry) ProviderOwner(ref string) (string, bool) {
	return r.Owner(extproto.Slot{Kind: extproto.SlotProvider, Arg: ref})
}

// Owns reports whether plugin owns at least one slot; owning any slot makes
// a plugin required-class for every call.
func (r *Registry) Owns(plugin string) bool {
	for _, p := range r.owners {
		if p == plugin {
			return true
		}
	}
	return false
}

// Claims returns every claimed slot and its owner, sorted by slot.
func (r *Registry) Claims() []Claim {
	out := make([]Claim, 0, len(r.owners))
	for s, p := range r.owners {
		slot, _ := extproto.ParseSlot(s)
		out = append(out, Claim{Slot: slot, Plugin: p})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Slot.String() < out[j].Slot.String() })
	return out
}

// Claim is one slot and its owner.
type Claim struct {
	Slot   extproto.Slot
	Plugin string
}
