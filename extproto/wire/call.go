package wire

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Outbound requests and notifications.

type pendingCall struct {
	id     int64
	method string
	frame  *frameBuf
	token  uint64
	ch     chan reply // capacity 1: whoever takes the call from the map sends once
	// handBack: the reading role goes to a reader goroutine, not parked,
	// once this call's answer is read (HandBack).
	handBack bool
}

type reply struct {
	result json.RawMessage
	err    error
}

var pendingPool = sync.Pool{New: func() any { return &pendingCall{ch: make(chan reply, 1)} }}

// take removes and returns the pending call with id, or nil.
func (c *Conn) take(id int64) *pendingCall {
	c.mu.Lock()
	pc := c.pending[id]
	if pc != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
	return pc
}

// Call sends a request and waits for its answer, returning the raw result
// for the caller to decode strictly: a copy only the caller holds. Ids are integers from 1, per
// connection. A remote error is a *extproto.Error (extproto.FromWire); a
// frame over the limit fails with frame_too_large before anything is
// written; params must encode to a JSON object (nil omits them). When ctx
// ends first only this call fails: its frame is dropped if the writer has
// not started it, and a late answer is reported as unmatched.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, time.Time{}, method, params)
}

// CallWithin is Call bounded by d as well as by ctx: after d it fails
// with an error matching context.DeadlineExceeded while ctx.Err() stays
// nil. It saves the timer and context of a context.WithTimeout per call:
// a caller reading its own answer (Options.CallerReads) bounds its read
// with a read deadline, and only a caller waiting for someone else to
// read arms a (pooled) timer.
func (c *Conn) CallWithin(ctx context.Context, d time.Duration, method string, params any) (json.RawMessage, error) {
	return c.call(ctx, time.Now().Add(d), method, params)
}

func (c *Conn) call(ctx context.Context, deadline time.Time, method string, params any) (json.RawMessage, error) {
	f := getBuf()
	id := c.nextID.Add(1)
	if err := f.request(id, true, method, params); err != nil {
		putBuf(f)
		return nil, fmt.Errorf("wire: call %q: %w", method, err)
	}
	if len(f.b) > c.opts.MaxFrameBytes {
		n := len(f.b)
		putBuf(f)
		return nil, c.tooLarge("call", method, n)
	}
	pc := pendingPool.Get().(*pendingCall)
	token := f.queue()
	pc.id, pc.method, pc.frame, pc.token = id, method, f, token
	pc.handBack = c.role != nil && handBack(ctx)
	c.mu.Lock()
	if c.pending == nil {
		c.mu.Unlock()
		putBuf(f)
		c.recycle(pc)
		return nil, fmt.Errorf("wire: call %q: %w", method, c.terminal())
	}
	c.pending[id] = pc
	c.mu.Unlock()

	c.releaseRole(ctx)
	if !c.tryInline(ctx, f, token) {
		if err := c.enqueue(ctx, f); err != nil {
			if c.take(id) == nil {
				<-pc.ch // fail already answered it
			}
			c.recycle(pc)
			return nil, fmt.Errorf("wire: call %q: %w", method, err)
		}
	}

	r, werr := c.await(ctx, pc, deadline)
	if werr == nil {
		c.recycle(pc)
		return r.result, r.err
	}
	if c.take(id) == nil {
		// An answer (or the teardown error) is being delivered right now.
		r := <-pc.ch
		c.recycle(pc)
		return r.result, r.err
	}
	f.drop(token)
	c.recycle(pc)
	return nil, fmt.Errorf("wire: call %q (id %d): %w", method, id, werr)
}

func (c *Conn) recycle(pc *pendingCall) {
	pc.frame, pc.method, pc.token = nil, "", 0
	pendingPool.Put(pc)
}

// Notify queues a notification, waiting for room in the outbound queue
// until ctx ends. Once it returns nil the frame will be written unless the
// connection ends first; ctx no longer matters.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	f, err := c.notification(method, params)
	if err != nil {
		return err
	}
	if err := c.send(ctx, f); err != nil {
		return fmt.Errorf("wire: notify %q: %w", method, err)
	}
	return nil
}

// TryNotify queues a best-effort notification without ever blocking. At
// most Options.EventSlots such frames are queued or being written; beyond
// that, or when the outbound queue has no room, it fails at once with an
// error matching ErrQueueFull ("outbound notification queue is full
// (limit 16)") and the caller drops the event.
func (c *Conn) TryNotify(method string, params any) error {
	f, err := c.eventFrame(method, params)
	if err != nil {
		return err
	}
	f.bestEffort = true
	token := f.queue()
	// Written here when the writer is idle: queueing it would wake the
	// writer goroutine, and the caller's next call would find the writer
	// busy and wait for that wake-up. One non-blocking attempt only.
	if c.try != nil && c.tryInline(context.Background(), f, token) {
		return nil
	}
	c.queued.Add(1)
	select {
	case c.out <- f:
		return nil
	default:
		c.queued.Add(-1)
		c.release(f)
		return c.errQueueFull
	}
}

// eventFrame takes an event slot (TryNotify, DeferNotify) and encodes the
// notification; on error the slot is free again.
func (c *Conn) eventFrame(method string, params any) (*frameBuf, error) {
	select {
	case <-c.done:
		return nil, fmt.Errorf("wire: notify %q: %w", method, c.terminal())
	default:
	}
	if int(c.events.Add(1)) > c.opts.EventSlots {
		c.events.Add(-1)
		return nil, c.errQueueFull
	}
	f, err := c.notification(method, params)
	if err != nil {
		c.events.Add(-1)
		return nil, err
	}
	return f, nil
}

func (c *Conn) notification(method string, params any) (*frameBuf, error) {
	f := getBuf()
	if err := f.request(0, false, method, params); err != nil {
		putBuf(f)
		return nil, fmt.Errorf("wire: notify %q: %w", method, err)
	}
	if len(f.b) > c.opts.MaxFrameBytes {
		n := len(f.b)
		putBuf(f)
		return nil, c.tooLarge("notification", method, n)
	}
	return f, nil
}

func (c *Conn) tooLarge(what, method string, n int) error {
	return extproto.Errorf(extproto.ReasonFrameTooLarge, "wire: %s %q is a %d-byte frame, over the %d-byte limit; nothing was written", what, method, n, c.opts.MaxFrameBytes)
}
