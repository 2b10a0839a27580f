package editorui

import (
	"slices"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Actions returns the bound generation and its action list, as the host
// built it (sorted by name, labels redacted).
func (h *Hub) Actions() (int64, extproto.Actions) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen, slices.Clone(h.actions)
}

// declared reports whether name is an action of the bound generation; the
// caller holds h.mu.
func (h *Hub) declared(name string) bool {
	_, err := h.actions.Find(name)
	return err == nil
}
