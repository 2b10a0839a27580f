package wire

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Deferred notifications (issue 20). A best-effort notification sent with
// DeferNotify does not wake the peer on its own: it waits, at most
// Options.DeferWindow, for the next frame written on the connection and
// goes out in the same write, ahead of it. A host walking a chain sends
// each member an extension/event after the walk; deferred, that event
// rides with the member's next intercept, so the member's process is
// woken once per walk instead of twice. Order is kept: deferred frames
// are always written before any frame written after them.
//
// Every physical write under wmu takes the deferred frames first (the
// blocking writes in writeFrame, the caller's non-blocking attempt in
// tryInline); a timer writes them alone when no frame came within the
// window and the writer is idle.

// deferQueue holds the encoded deferred frames, in order.
type deferQueue struct {
	mu    sync.Mutex
	b     []byte
	n     int // frames in b; each holds an event slot
	armed bool
	timer *time.Timer
	// pending is n, readable without mu: the write paths' fast check.
	pending atomic.Int32
	// scratch is where a write joins the deferred frames and its own
	// (guarded by wmu).
	scratch []byte
}

// DeferNotify is TryNotify for a notification that may wait up to
// Options.DeferWindow to be written with the next frame. It never blocks
// and counts against Options.EventSlots until written; like TryNotify it
// fails at once with ErrQueueFull beyond that. One notification waits at
// a time: a second one is written at once, with the first ahead of it,
// as TryNotify, so a burst of them is neither held back nor dropped for
// want of slots. With a negative DeferWindow it is TryNotify.
func (c *Conn) DeferNotify(method string, params any) error {
	if c.opts.DeferWindow < 0 || c.queued.Load() != 0 || c.dq.pending.Load() != 0 {
		// Frames already queued go first (the writer would put a
		// deferred frame ahead of them); one deferred is enough.
		return c.TryNotify(method, params)
	}
	f, err := c.eventFrame(method, params)
	if err != nil {
		return err
	}
	c.traceFrame(false, f.b)
	d := &c.dq
	d.mu.Lock()
	d.b = append(d.b, f.b...)
	d.n++
	d.pending.Store(int32(d.n))
	c.armDeferredLocked()
	d.mu.Unlock()
	putBuf(f)
	return nil
}

// armDeferredLocked starts the window's timer unless it runs. The caller
// holds dq.mu.
func (c *Conn) armDeferredLocked() {
	d := &c.dq
	if d.armed {
		return
	}
	d.armed = true
	if d.timer == nil {
		d.timer = time.AfterFunc(c.opts.DeferWindow, c.flushDeferred)
	} else {
		d.timer.Reset(c.opts.DeferWindow)
	}
}

// joinDeferred returns what a write of frame b must write first, with
// the number of deferred bytes and frames in it: the deferred frames
// followed by b in the scratch buffer (joined), or the deferred frames
// alone when the two are too large to share one write (b is then to be
// written after them, or queued). With nothing deferred it is b, joined.
// The caller holds wmu.
func (c *Conn) joinDeferred(b []byte) (out []byte, k, n int, joined bool) {
	d := &c.dq
	if d.pending.Load() == 0 {
		return b, 0, 0, true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.n == 0 {
		return b, 0, 0, true
	}
	d.scratch = append(d.scratch[:0], d.b...)
	if joined = len(d.b)+len(b) <= writeChunk; joined {
		d.scratch = append(d.scratch, b...)
	}
	return d.scratch, len(d.b), d.n, joined
}

// consumeDeferred drops the first k bytes (n frames) of the deferred
// frames, now written (or lost with the connection), and frees their
// event slots. The caller holds wmu.
func (c *Conn) consumeDeferred(k, n int) {
	if n == 0 {
		return
	}
	d := &c.dq
	d.mu.Lock()
	d.b = d.b[:copy(d.b, d.b[k:])]
	d.n -= n
	d.pending.Store(int32(d.n))
	d.mu.Unlock()
	c.events.Add(int32(-n))
}

// writeFrame is the blocking physical write of frame b (nil for none)
// with the deferred frames ahead of it. The caller holds wmu.
func (c *Conn) writeFrame(b []byte) error {
	out, k, n, joined := c.joinDeferred(b)
	_, err := c.writeBytes(out)
	c.consumeDeferred(k, n)
	if err == nil && !joined {
		_, err = c.writeBytes(b)
	}
	return err
}

// flushDeferred runs DeferWindow after a frame was deferred: if no write
// took the deferred frames since, it writes them itself when the writer
// is idle; when it is busy, it looks again one window later.
func (c *Conn) flushDeferred() {
	d := &c.dq
	d.mu.Lock()
	d.armed = false
	empty := d.n == 0
	d.mu.Unlock()
	if empty || c.isDone() {
		return
	}
	if !c.idleWriter() {
		d.mu.Lock()
		if d.n > 0 {
			c.armDeferredLocked()
		}
		d.mu.Unlock()
		return
	}
	defer c.wmu.Unlock()
	if err := c.writeFrame(nil); err != nil {
		c.fail(fmt.Errorf("wire: write: %w", err), false)
	}
}

// stopDeferred stops the window's timer at teardown.
func (c *Conn) stopDeferred() {
	d := &c.dq
	d.mu.Lock()
	if d.timer != nil {
		d.timer.Stop()
	}
	d.mu.Unlock()
}
