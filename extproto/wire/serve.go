package wire

import (
	"context"
	"encoding/json"
	"sync"
	"time"
)

// Serving requests without blocking the reader, and without a goroutine
// hand-off on the hot path (leader/follower).
//
// One goroutine at a time holds the reading role. When it reads a request
// it serves it itself, so the request reaches its handler and the answer
// reaches the wire with no wake-up of another goroutine. It keeps the role
// while doing so, which is fine for the common handler that answers in
// microseconds; a handler that takes longer than handoffDelay, or that
// calls back to the peer through Call (whose answer only a reader can
// deliver), gives the role away: to an idle goroutine, or to a new one.
// Reading therefore pauses at most handoffDelay behind a slow handler,
// and never behind one that waits on the peer.
//
// Why it matters: a goroutine hand-off costs a scheduler wake-up of
// another thread, several microseconds of CPU on each side of every call;
// and a sidecar reading a blocking stdin parks its reader in a syscall,
// where a woken handler may wait for the scheduler to retake the P.

// handoffDelay is how long a handler may run before the reading role
// moves to another goroutine.
const handoffDelay = 50 * time.Microsecond

// maxIdleHandlers bounds the goroutines kept waiting for the reading
// role. Reusing them keeps their grown stacks: a fresh goroutine per
// request spends more on stack growth than on the hand-off.
const maxIdleHandlers = 8

// readState is the reading role: whoever holds it owns the frame reader
// and the parser.
type readState struct {
	fr *frameReader
	p  *parser
	// first is a request already read, to serve before reading on: a
	// caller reading its own answer hands it over with the role.
	first    request
	hasFirst bool
}

// request is an admitted inbound request on its way to a handler.
type request struct {
	id     int64
	method string
	params json.RawMessage
}

// server is one goroutine of the pool; it is in the handlers' context so
// Call can find it and give the role away before waiting.
type server struct {
	c     *Conn
	ctx   context.Context
	timer *time.Timer

	mu      sync.Mutex
	holding *readState // the role, while serving with it; nil otherwise
}

type serverKey struct{}

// reader runs one pool goroutine, starting with the reading role.
func (c *Conn) reader(st *readState) {
	defer c.wg.Done()
	s := &server{c: c}
	s.ctx = context.WithValue(c.ctx, serverKey{}, s)
	s.timer = time.AfterFunc(time.Hour, s.handoff)
	s.timer.Stop()
	defer s.timer.Stop()
	for {
		var req request
		out := readServe
		if st.hasFirst {
			req, st.first, st.hasFirst = st.first, request{}, false
		} else {
			req, out = c.readUntilRequest(st)
		}
		if out == readOver {
			return
		}
		if out == readParked {
			if st = c.idleWait(); st == nil {
				return
			}
			continue
		}
		s.mu.Lock()
		s.holding = st
		s.mu.Unlock()
		s.timer.Reset(handoffDelay)
		c.serve(s.ctx, req)
		c.handlers.Add(-1)
		s.timer.Stop()
		s.mu.Lock()
		kept := s.holding != nil
		s.holding = nil
		s.mu.Unlock()
		if kept {
			continue // still the reader
		}
		if st = c.idleWait(); st == nil {
			return
		}
	}
}

// idleWait keeps a pool goroutine idle until the reading role comes back
// to it; nil means it is not needed (too many idle, or the end).
func (c *Conn) idleWait() *readState {
	if c.idle.Add(1) > maxIdleHandlers {
		c.idle.Add(-1)
		return nil
	}
	select {
	case st := <-c.readRole:
		c.idle.Add(-1)
		return st
	case <-c.done:
		return nil
	}
}

// handoff gives the reading role away if this goroutine still holds it
// while serving. It runs on the timer or from Call.
func (s *server) handoff() {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.holding
	if st == nil {
		return
	}
	s.holding = nil
	s.c.giveRole(st)
}

// releaseRole is called by Call before it waits: if ctx is a handler's
// context on this Conn, that handler's goroutine may hold the reading
// role, and the answer Call waits for needs a reader.
func (c *Conn) releaseRole(ctx context.Context) {
	if s, ok := ctx.Value(serverKey{}).(*server); ok && s.c == c {
		s.handoff()
	}
}
