package wire

import (
	"context"
	"fmt"
	"time"
)

// The writer. Frames are written one at a time under wmu, in queue order,
// so they never interleave. Callers queue frames on c.out for the writer
// goroutine; that keeps a caller's context in charge of how long it waits
// (a cancelled call's unstarted frame is simply skipped). A handler's
// answer may instead be written directly by the handler's goroutine, but
// only when nothing is queued or being written, so order is unchanged and
// the writer goroutine's wake-up is saved on the hot path. Large frames
// are written in chunks so the stall watchdog measures progress, not the
// time an 8 MiB frame takes on a slow pipe.

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

// sendDirect writes an answer on the calling goroutine when the writer is
// idle (nothing queued, nothing being written), and queues it otherwise.
// Only the Conn's own goroutines use it: they have no deadline that a
// blocked write could overrun (the stall watchdog bounds them).
func (c *Conn) sendDirect(f *frameBuf) {
	if c.queued.Load() == 0 && c.wmu.TryLock() {
		if c.queued.Load() == 0 && !c.isDone() {
			f.queue()
			c.write(f)
			c.wmu.Unlock()
			return
		}
		c.wmu.Unlock()
	}
	// An error means the connection is gone: there is nobody to answer.
	_ = c.send(context.Background(), f)
}

func (c *Conn) isDone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

func (c *Conn) writeLoop() {
	defer c.wg.Done()
	defer c.closeWriter()
	for {
		select {
		case f := <-c.out:
			c.wmu.Lock()
			ok := c.write(f)
			c.wmu.Unlock()
			c.queued.Add(-1)
			if !ok {
				return
			}
		case <-c.done:
			c.mu.Lock()
			drain := c.drain
			c.mu.Unlock()
			if drain {
				c.wmu.Lock()
				c.flush()
				c.wmu.Unlock()
			}
			return
		}
	}
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
	b := f.b
	for len(b) > 0 {
		n := min(len(b), writeChunk)
		c.writeStart.Store(c.now())
		k, err := c.w.Write(b[:n])
		c.writeStart.Store(0)
		if err != nil {
			c.fail(fmt.Errorf("wire: write: %w", err), false)
			return false
		}
		b = b[k:]
	}
	return true
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
