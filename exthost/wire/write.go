package wire

import (
	"context"
	"fmt"
	"time"
)

// The single writer. Every frame goes through c.out in order and is
// written by writeLoop alone, so frames never interleave. Large frames are
// written in chunks so the stall watchdog measures progress, not the time
// an 8 MiB frame takes on a slow pipe.

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
	select {
	case c.out <- f:
		return nil
	default:
	}
	select {
	case c.out <- f:
		return nil
	case <-ctx.Done():
		putBuf(f)
		return ctx.Err()
	case <-c.done:
		putBuf(f)
		return c.terminal()
	}
}

func (c *Conn) writeLoop() {
	defer c.wg.Done()
	defer c.closeWriter()
	for {
		select {
		case f := <-c.out:
			if !c.write(f) {
				return
			}
		case <-c.done:
			c.mu.Lock()
			drain := c.drain
			c.mu.Unlock()
			if drain {
				c.flush()
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
// connection can no longer write.
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
