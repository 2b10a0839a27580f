package exthost

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// observers of one generation: warn-once memory and the audit sink.
type observers struct {
	warned *sync.Map // plugin + "\x00" + category -> struct{}
	warn   func(string)
	audit  func(string)
}

// warnOnce logs msg the first time plugin fails in category in this
// generation, and reports whether it did.
func (g *Generation) warnOnce(plugin, category, msg string) bool {
	if _, dup := g.obs.warned.LoadOrStore(plugin+"\x00"+category, struct{}{}); dup {
		return false
	}
	if g.obs.warn != nil {
		g.obs.warn(msg)
	}
	return true
}

func (g *Generation) audit(note string) {
	if g.obs.audit != nil {
		g.obs.audit(note)
	}
}

// Event sends a fire-and-forget observation of point to every plugin in
// its chain and the owner of its slot, deduplicated. It never blocks: a
// sidecar whose bounded event queue is full (or that is gone) misses the
// event, and that is warned about once per plugin. With no observer it
// does no JSON work.
func (g *Generation) Event(point extproto.HookPoint, payload extproto.Payload) []string {
	return g.eventFor("", point, payload)
}

// eventFor is Event on behalf of session id ("" for none): each observer
// notes it as the latest session it observed (behalf.go).
func (g *Generation) eventFor(id string, point extproto.HookPoint, payload extproto.Payload) []string {
	to := g.observersOf(point, payload)
	if len(to) == 0 {
		return nil
	}
	raw, err := extproto.MarshalPayload(payload)
	if err != nil {
		msg := fmt.Sprintf("encode %s event: %v", point, err)
		if g.obs.warn != nil {
			g.obs.warn(msg)
		}
		return []string{msg}
	}
	var out Outcome
	g.broadcast(id, to, point, raw, &out)
	return out.Warnings
}

// broadcast is Event to the observers to, on behalf of session id, with
// the payload already encoded; it appends its warnings to out.
func (g *Generation) broadcast(id string, to []*Sidecar, point extproto.HookPoint, raw json.RawMessage, out *Outcome) {
	for _, s := range to {
		s.behalf.observed(id)
		if err := s.event(point, raw); err != nil {
			msg := fmt.Sprintf("extension %s dropped the %s event: %s", s.Plugin.ID, point, redact.String(err.Error()))
			if g.warnOnce(s.Plugin.ID, warnDropped, msg) {
				out.Warnings = append(out.Warnings, msg)
			}
		}
	}
}

// Observed reports whether any plugin observes point in g (observersOf is
// not empty), so a caller can skip building a payload nobody reads.
func (g *Generation) Observed(point extproto.HookPoint) bool {
	return len(g.chains[point]) > 0 || g.owner(point, nil) != nil
}

// observersOf is who gets the extension/event of point: every plugin
// whose manifest intercepts it (its chain) plus the owner of the slot
// ruling it, without duplicates, in chain order. This is the one rule of
// who observes a point.
func (g *Generation) observersOf(point extproto.HookPoint, payload extproto.Payload) []*Sidecar {
	chain := g.chains[point]
	owner := g.owner(point, payload)
	if owner == nil {
		return chain
	}
	for _, s := range chain {
		if s == owner {
			return chain
		}
	}
	return append(chain[:len(chain):len(chain)], owner)
}
