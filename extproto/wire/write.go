package wire

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// The writer. Frames are written one at a time under wmu, in queue order,
// so they never interleave. Who performs a write:
//
//   - the writer goroutine, for everything queued on c.out;
//   - a handler's goroutine, for its answer, when nothing is queued or
//     being written (its goroutine has no deadline to overrun; the stall
//     watchdog bounds it);
//   - a caller of Call, for its request, when nothing is queued or being
//     written, as a non-blocking attempt (one write syscall on a
//     non-blocking pipe, which never waits). If the pipe has no room, a
//     frame not yet started goes to the queue as usual (so cancelling the
//     call still withdraws it), and a frame written part-way is finished
//     by the writer goroutine before anything else. Either way the caller
//     then waits under its context. When w cannot be written without
//     blocking, only callers whose context can never end write directly.
//
// The direct paths save a goroutine wake-up (a thread wake-up on a loaded
// machine) per frame on the hot path; queue order is unchanged because
// they only run when the queue is empty.

// writeChunk is the largest single physical write.
const writeChunk = 64 << 10

// send queues a frame nobody will want to drop (answers, notifications).
func (c *Conn) send(ctx context.Context, f *frameBuf) error {
	f.queue()
	return c.enqueue(ctx, f)
}

// enqueue puts a frame marked by queue() on the outbound queue, waiting
// for room until ctx ends or the connection does. On error f has been
// recycled.
func (c *Conn) enqueue(ctx context.Context, f *frameBuf) error {
	select {
	case <-c.done:
		putBuf(f)
		return c.terminal()
	default:
	}
	c.queued.Add(1)
	select {
	case c.out <- f:
		return nil
	default:
	}
	select {
	case c.out <- f:
		return nil
	case <-ctx.Done():
		c.queued.Add(-1)
		putBuf(f)
		return ctx.Err()
	case <-c.done:
		c.queued.Add(-1)
		putBuf(f)
		return c.terminal()
	}
}

// idleWriter takes wmu if nothing is queued, half-written or being
// written, and the connection is up; the caller then writes and unlocks.
func (c *Conn) idleWriter() bool {
	if c.queued.Load() != 0 || !c.wmu.TryLock() {
		return false
	}
	if c.queued.Load() != 0 || c.partial != nil || c.isDone() {
		c.wmu.Unlock()
		return false
	}
	return true
}

// sendDirect writes a handler's answer on the handler's goroutine when
// the writer is idle, and queues it otherwise.
func (c *Conn) sendDirect(f *frameBuf) {
	if c.idleWriter() {
		f.queue()
		c.write(f)
		c.wmu.Unlock()
		return
	}
	// An error means the connection is gone: there is nobody to answer.
	_ = c.send(context.Background(), f)
}

// tryInline is a caller's attempt to write its own frame f (still in the
// queued state, with token) without waiting. It reports whether f is taken
// care of: written, failed with the connection, or handed to the writer
// part-way. false leaves f untouched, for the queue.
func (c *Conn) tryInline(ctx context.Context, f *frameBuf, token uint64) bool {
	blocking := c.try == nil
	if blocking && ctx.Done() != nil {
		return false // a blocked write would outlive the caller's context
	}
	if !c.idleWriter() {
		return false
	}
	defer c.wmu.Unlock()
	if !f.take() {
		return false // cannot happen: f is not visible to anyone else yet
	}
	b, k, dn, joined := c.joinDeferred(f.b)
	if !joined {
		f.state.Store(token) // deferred frames too large to join: the writer writes both
		return false
	}
	c.traceFrame(false, f.b)
	var n int
	var err error
	if blocking {
		n, err = c.writeBytes(b)
	} else {
		n, err = c.try.write(b)
	}
	if n > 0 || (err != nil && !errors.Is(err, errWouldBlock)) {
		c.consumeDeferred(k, dn) // written, or lost with the connection
	}
	switch {
	case err == nil:
		c.release(f)
	case !errors.Is(err, errWouldBlock):
		c.release(f)
		c.fail(fmt.Errorf("wire: write: %w", err), false)
	case n == 0:
		f.state.Store(token) // not started: the queue takes it, cancellable
		return false
	default:
		// Started: it must complete, and before any other frame.
		c.opts.Logger.Debug("wire: peer slow to read; the writer finishes a call frame", "written", n, "bytes", len(b))
		if k > 0 {
			// What is left of the deferred frames and f, in a frame of
			// its own (f's buffer goes back to the pool).
			rest := getBuf()
			rest.b = append(rest.b[:0], b...)
			c.release(f)
			f = rest
		}
		c.partial, c.partialOff = f, n
		select {
		case c.kick <- struct{}{}:
		default:
		}
	}
	return true
}

func (c *Conn) writeLoop() {
	defer c.wg.Done()
	defer c.closeWriter()
	for {
		select {
		case f := <-c.out:
			c.wmu.Lock()
			ok := c.finishPartial() && c.write(f)
			c.wmu.Unlock()
			c.queued.Add(-1)
			if !ok {
				return
			}
		case <-c.kick:
			c.wmu.Lock()
			ok := c.finishPartial()
			c.wmu.Unlock()
			if !ok {
				return
			}
		case <-c.done:
			c.mu.Lock()
			drain := c.drain
			c.mu.Unlock()
			if drain {
				c.wmu.Lock()
				if c.finishPartial() {
					c.flush()
				}
				c.wmu.Unlock()
			}
			return
		}
	}
}

// finishPartial completes a frame a caller started inline; the caller
// holds wmu. false means the connection can no longer write.
func (c *Conn) finishPartial() bool {
	f := c.partial
	if f == nil {
		return true
	}
	c.partial = nil
	defer c.release(f)
	if _, err := c.writeBytes(f.b[c.partialOff:]); err != nil {
		c.fail(fmt.Errorf("wire: write: %w", err), false)
		return false
	}
	return true
}

// flush writes what is still queued at teardown, within DrainTimeout (the
// timer set by fail closes w at the deadline, which unblocks a write).
func (c *Conn) flush() {
	deadline := time.Now().Add(c.opts.DrainTimeout)
	for time.Now().Before(deadline) {
		select {
		case f := <-c.out:
			if !c.write(f) {
				return
			}
		default:
			_ = c.writeFrame(nil) // the deferred frames, last
			return
		}
	}
}

// write performs one frame unless it was dropped; false means the
// connection can no longer write. The caller holds wmu.
func (c *Conn) write(f *frameBuf) bool {
	defer c.release(f)
	if !f.take() {
		return true
	}
	c.traceFrame(false, f.b)
	if err := c.writeFrame(f.b); err != nil {
		c.fail(fmt.Errorf("wire: write: %w", err), false)
		return false
	}
	return true
}

// writeBytes is the physical write, in chunks, under the watchdog. It
// returns how much was written.
func (c *Conn) writeBytes(b []byte) (int, error) {
	total := 0
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		c.writeStart.Store(c.now())
		k, err := c.w.Write(b[:n])
		c.writeStart.Store(0)
		total += k
		if err != nil {
			return total, err
		}
		b = b[k:]
	}
	return total, nil
}

func (c *Conn) release(f *frameBuf) {
	if f.bestEffort {
		c.events.Add(-1)
	}
	putBuf(f)
}

// watchdog fails the connection when one physical write has made no
// progress for StallTimeout. It ticks every StallTimeout/2 and is
// independent of any call's deadline.
func (c *Conn) watchdog() {
	defer c.wg.Done()
	stall := c.opts.StallTimeout
	t := time.NewTicker(stall / 2)
	defer t.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-t.C:
			if s := c.writeStart.Load(); s != 0 && c.now()-s >= int64(stall) {
				c.fail(fmt.Errorf("%w: no progress for %v", ErrWriteStall, stall), false)
				return
			}
		}
	}
}

func (c *Conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}
