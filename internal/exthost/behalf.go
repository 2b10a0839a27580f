package exthost

import (
	"context"
	"sync"
)

// Which session a plugin's UI traffic belongs to (issue 26). One runtime
// serves every session of a process, and a sidecar stamps its
// host/ui/request and host/ui/publish with the runtime's session, not the
// agent session they come from: only the host knows on whose behalf it is
// calling a sidecar. The caller says so in its context (OnBehalfOf: the
// agent for the calls of a session's turn and its session.* points, a
// front end for an action or a form it runs for a session), the sidecar
// keeps a record of its outstanding calls made on behalf of a session and
// of the latest session it was sent an event for, and UI traffic arriving
// from it is attributed to:
//
//  1. the session of its outstanding call, when one is outstanding: the
//     traffic is part of serving that call (an intercept of A's
//     session.start or tool.before, an action run from A, A's provider
//     stream while it lasts). When calls of several sessions are
//     outstanding at once, the most recent of them (the one that began
//     last): a sidecar may serve them concurrently (the SDK does) and
//     nothing on the wire says which one a request comes from, so the
//     newest is picked, deterministically.
//  2. else, the session of the latest extension/event it was sent on
//     behalf of a session: an observer publishes for the event it
//     observed (hello's status at A's session.start). An event is a
//     notification, so the host cannot know when its handling ends; if
//     events of several sessions are in flight, the latest one wins.
//  3. else no session (""): session-less traffic, from a plugin never
//     called nor notified on behalf of a session. A front end shows a
//     session-less surface in every open session and asks a
//     session-less question in its most recently active session.
//
// The attributed session reaches the services in their context
// (SessionOf), and the UI hub names it in the Origin it hands the editor.

type behalfKey struct{}

// OnBehalfOf returns ctx saying that the calls made with it into a sidecar
// serve session id; "" says they serve none.
func OnBehalfOf(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, behalfKey{}, id)
}

// SessionOf is the session ctx serves ("" for none): for a caller, what
// OnBehalfOf set; in a UI service (Services.UIRequest, UIPublish), the
// session the sidecar's traffic is attributed to.
func SessionOf(ctx context.Context) string {
	id, _ := ctx.Value(behalfKey{}).(string)
	return id
}

// behalf records the calls into one sidecar outstanding on behalf of a
// session, in the order they began.
type behalf struct {
	mu    sync.Mutex
	next  uint64
	calls []behalfCall
	// event is the session of the latest event sent on behalf of one.
	event string
}

type behalfCall struct {
	n       uint64
	session string
}

// enter records a call on behalf of session id until leave(n) is called
// with the number it returns. A call on behalf of no session is not
// recorded (0). It allocates nothing once the record has grown.
func (b *behalf) enter(id string) (n uint64) {
	if id == "" {
		return 0
	}
	b.mu.Lock()
	b.next++
	n = b.next
	b.calls = append(b.calls, behalfCall{n: n, session: id})
	b.mu.Unlock()
	return n
}

// leave ends the call enter numbered n; 0 and a call already left are
// ignored.
func (b *behalf) leave(n uint64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, c := range b.calls {
		if c.n == n {
			b.calls = append(b.calls[:i], b.calls[i+1:]...)
			return
		}
	}
}

// observed records an event sent on behalf of session id; an event on
// behalf of no session changes nothing.
func (b *behalf) observed(id string) {
	if id == "" {
		return
	}
	b.mu.Lock()
	b.event = id
	b.mu.Unlock()
}

// current is the session UI traffic arriving now is attributed to: that of
// the most recent outstanding call, else that of the latest event, else
// "".
func (b *behalf) current() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.calls) == 0 {
		return b.event
	}
	return b.calls[len(b.calls)-1].session
}
