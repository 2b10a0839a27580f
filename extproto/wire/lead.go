package wire

import (
	"context"
	"errors"
	"os"
	"time"
)

// Callers reading their own answers (leader/follower on the calling
// side).
//
// A caller waiting for its answer reads the connection itself while no
// one else is reading, so the common case — one call at a time, answered
// at once — has no goroutine hand-off: the netpoller wakes the caller
// directly, as it wakes the raw echo's reader. The reading role moves
// between goroutines and is never held by two:
//
//   - a pool goroutine (serve.go) holds it when no caller does; when it
//     delivers an answer it parks the role, expecting the next call soon;
//   - a waiting caller takes a parked role and reads: answers to other
//     callers go to them, notifications to the ordered worker, a request
//     goes with the role to a pool goroutine (which serves it and reads
//     on); when its own answer arrives it parks the role again, or hands
//     it straight to a pool goroutine when unsolicited traffic is flowing
//     (a notification or request arrived while it read) or its context
//     asks for it (HandBack, for a call that opens a stream);
//   - a role parked for Options.CallerReads with no caller taking it goes
//     to a pool goroutine, so unsolicited frames are read within that
//     delay when no call is in flight.
//
// A caller whose context ends while it reads is interrupted by a read
// deadline in the past (the reader must be an *os.File that supports
// deadlines; otherwise callers never read) and hands the role to a pool
// goroutine; a partly read frame is kept for the next reader.

// handBackKey marks a context whose call hands the reading role back as
// soon as its answer is read.
type handBackKey struct{}

// HandBack returns ctx marked so that a Call under it, if it reads its own
// answer, gives the reading role to a reader goroutine at once instead of
// parking it for the next call: for a call after which the peer sends
// unsolicited frames right away (a stream's chunks).
func HandBack(ctx context.Context) context.Context {
	return context.WithValue(ctx, handBackKey{}, true)
}

func handBack(ctx context.Context) bool {
	v, _ := ctx.Value(handBackKey{}).(bool)
	return v
}

// longAgo is a read deadline in the past: it interrupts a blocked read.
var longAgo = time.Unix(1, 0)

// readDeadliner is the reader's deadline control (an *os.File pipe).
type readDeadliner interface {
	SetReadDeadline(time.Time) error
}

// setupLead enables callers reading when opts ask for it and r can be
// interrupted.
func (c *Conn) setupLead(r any) {
	if c.opts.CallerReads <= 0 {
		return
	}
	f, ok := r.(*os.File)
	if !ok || f.SetReadDeadline(time.Time{}) != nil {
		return
	}
	c.rd = f
	c.role = make(chan *readState, 1)
	c.roleTimer = time.AfterFunc(time.Hour, c.unpark)
	c.roleTimer.Stop()
}

// park leaves the reading role for the next caller; after
// Options.CallerReads a pool goroutine takes it.
func (c *Conn) park(st *readState) {
	c.role <- st // never blocks: there is one role and it is not parked
	c.roleTimer.Reset(c.opts.CallerReads)
}

// unpark gives a role still parked to a pool goroutine.
func (c *Conn) unpark() {
	select {
	case st := <-c.role:
		c.giveRole(st)
	default:
	}
}

// giveRole hands the reading role to an idle pool goroutine, or to a new
// one. Once the connection has failed nobody needs it.
func (c *Conn) giveRole(st *readState) {
	select {
	case c.readRole <- st:
		return
	default:
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	// Under c.mu with no terminal error: Close has not started waiting.
	c.wg.Add(1)
	c.mu.Unlock()
	go c.reader(st)
}

// await waits for pc's answer, reading the connection itself whenever
// the role is parked. ok false means ctx ended first.
func (c *Conn) await(ctx context.Context, pc *pendingCall) (reply, bool) {
	for {
		select {
		case r := <-pc.ch:
			return r, true
		case st := <-c.role: // nil channel when callers never read
			if r, ok, done := c.lead(ctx, pc, st); done {
				return r, ok
			}
		case <-ctx.Done():
			return reply{}, false
		}
	}
}

// lead reads with the role st until pc is answered (done, ok), ctx ends
// (done, !ok), or a request takes the role to a pool goroutine (!done).
func (c *Conn) lead(ctx context.Context, pc *pendingCall, st *readState) (r reply, ok, done bool) {
	var stop func() bool
	if ctx.Done() != nil {
		if ctx.Err() != nil {
			c.giveRole(st)
			return reply{}, false, true
		}
		c.leadMu.Lock()
		c.leader = pc
		c.leadMu.Unlock()
		stop = context.AfterFunc(ctx, func() { c.interrupt(pc) })
	}
	unsolicited := false
	for {
		select {
		case r = <-pc.ch:
			c.unlead(stop)
			if unsolicited || handBack(ctx) {
				c.giveRole(st)
			} else {
				c.park(st)
			}
			return r, true, true
		default:
		}
		line, err := st.fr.next()
		if err != nil {
			c.unlead(stop)
			if errors.Is(err, os.ErrDeadlineExceeded) {
				c.giveRole(st) // interrupted: ctx ended (await sees it)
				return reply{}, false, false
			}
			c.readFailed(err)
			return <-pc.ch, true, true // the failure answered every call
		}
		line = trimFrame(line)
		if len(line) == 0 {
			continue
		}
		c.traceFrame(true, line)
		req, kind, more := c.dispatch(st.p, line)
		if !more {
			c.unlead(stop)
			return <-pc.ch, true, true
		}
		if kind == kindRequest {
			c.unlead(stop)
			st.first, st.hasFirst = req, true
			c.giveRole(st)
			return reply{}, false, false
		}
		if kind != kindResponse {
			unsolicited = true
		}
	}
}

// interrupt wakes pc's read when pc still leads.
func (c *Conn) interrupt(pc *pendingCall) {
	c.leadMu.Lock()
	if c.leader == pc {
		_ = c.rd.SetReadDeadline(longAgo)
	}
	c.leadMu.Unlock()
}

// unlead ends a cancellable lead before the role moves on, clearing a
// deadline its interrupt may have set.
func (c *Conn) unlead(stop func() bool) {
	if stop == nil {
		return
	}
	c.leadMu.Lock()
	c.leader = nil
	c.leadMu.Unlock()
	if !stop() {
		// The interrupt ran or is running; once it holds leadMu it sees
		// no leader, so a deadline it set is cleared here after it.
		c.leadMu.Lock()
		_ = c.rd.SetReadDeadline(time.Time{})
		c.leadMu.Unlock()
	}
}
