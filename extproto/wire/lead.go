package wire

import (
	"context"
	"errors"
	"os"
	"sync"
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
// the role is parked. A non-nil error is why it stopped waiting first:
// ctx's, or context.DeadlineExceeded once deadline (if not zero) passed.
func (c *Conn) await(ctx context.Context, pc *pendingCall, deadline time.Time) (reply, error) {
	var timer *time.Timer
	var expired <-chan time.Time
	defer func() {
		if timer != nil {
			timer.Stop()
			timerPool.Put(timer)
		}
	}()
	for {
		select {
		case r := <-pc.ch:
			return r, nil
		case st := <-c.role: // nil channel when callers never read
			if r, done, err := c.lead(ctx, pc, st, deadline); done {
				return r, err
			}
			continue
		default:
		}
		if !deadline.IsZero() && timer == nil {
			// Someone else reads: bound the wait with a pooled timer.
			d := time.Until(deadline)
			if d <= 0 {
				return reply{}, context.DeadlineExceeded
			}
			timer = timerPool.Get().(*time.Timer)
			timer.Reset(d)
			expired = timer.C
		}
		select {
		case r := <-pc.ch:
			return r, nil
		case st := <-c.role:
			if r, done, err := c.lead(ctx, pc, st, deadline); done {
				return r, err
			}
		case <-ctx.Done():
			return reply{}, ctx.Err()
		case <-expired:
			return reply{}, context.DeadlineExceeded
		}
	}
}

var timerPool = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// lead reads with the role st until pc is answered or fails (done, nil
// error), ctx ends or deadline passes (done, the reason), or the role
// goes to a pool goroutine with a request to serve (!done).
func (c *Conn) lead(ctx context.Context, pc *pendingCall, st *readState, deadline time.Time) (r reply, done bool, err error) {
	if err := ctx.Err(); err != nil {
		c.giveRole(st)
		return reply{}, true, err
	}
	if !deadline.IsZero() {
		if !time.Now().Before(deadline) {
			c.giveRole(st)
			return reply{}, true, context.DeadlineExceeded
		}
		_ = c.rd.SetReadDeadline(deadline)
	}
	var stop func() bool
	if ctx.Done() != nil {
		c.leadMu.Lock()
		c.leader = pc
		c.leadMu.Unlock()
		stop = context.AfterFunc(ctx, func() { c.interrupt(pc) })
	}
	unlead := func() {
		if stop != nil || !deadline.IsZero() {
			c.unlead(stop)
		}
	}
	unsolicited := false
	for {
		select {
		case r = <-pc.ch:
			unlead()
			if unsolicited || handBack(ctx) {
				c.giveRole(st)
			} else {
				c.park(st)
			}
			return r, true, nil
		default:
		}
		line, rerr := st.fr.next()
		if rerr != nil {
			unlead()
			if errors.Is(rerr, os.ErrDeadlineExceeded) {
				c.giveRole(st)
				switch {
				case ctx.Err() != nil:
					return reply{}, true, ctx.Err()
				case !deadline.IsZero() && !time.Now().Before(deadline):
					return reply{}, true, context.DeadlineExceeded
				}
				return reply{}, false, nil // not ours: wait on
			}
			c.readFailed(rerr)
			return <-pc.ch, true, nil // the failure answered every call
		}
		line = trimFrame(line)
		if len(line) == 0 {
			continue
		}
		c.traceFrame(true, line)
		req, kind, more := c.dispatch(st.p, line)
		if !more {
			unlead()
			return <-pc.ch, true, nil
		}
		if kind == kindRequest {
			unlead()
			st.first, st.hasFirst = req, true
			c.giveRole(st)
			return reply{}, false, nil
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

// unlead ends a bounded or cancellable lead before the role moves on,
// clearing the read deadline it or its interrupt set.
func (c *Conn) unlead(stop func() bool) {
	if stop == nil {
		_ = c.rd.SetReadDeadline(time.Time{})
		return
	}
	c.leadMu.Lock()
	c.leader = nil
	c.leadMu.Unlock()
	stop()
	// An interrupt that already ran set its deadline before this point;
	// one still running sees no leader once it holds leadMu. Clearing
	// under leadMu therefore comes after any deadline it sets.
	c.leadMu.Lock()
	_ = c.rd.SetReadDeadline(time.Time{})
	c.leadMu.Unlock()
}
