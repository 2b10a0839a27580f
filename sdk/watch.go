package sdk

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// watchWriter lets the SDK wait until a frame it started after a given
// moment has been written. wire queues an answer only after its handler
// returns and says nothing when it has; the SDK needs to know, to send a
// stream's chunks after the open's ack and to close the transport after
// the shutdown answer. wire writes frames one at a time, in queue order,
// so once a frame that started after the answer was encoded is out, the
// writer has reached the queue position behind which the answer lands a
// few instructions after encoding.
type watchWriter struct {
	w io.Writer

	// Whether the next Write begins a frame (frames never contain a raw
	// newline). Only Write touches it, and wire never writes concurrently.
	atStart bool

	started atomic.Uint64 // frames begun
	done    atomic.Uint64 // number (1-based) of the last frame written in full
	waiters atomic.Int32

	mu   sync.Mutex
	wake chan struct{} // closed and replaced when a frame completes while someone waits

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: the connection's writer is done
}

func newWatchWriter(w io.Writer) *watchWriter {
	return &watchWriter{w: w, atStart: true, wake: make(chan struct{}), closed: make(chan struct{})}
}

// Write implements io.Writer; wire writes a frame in one or more calls.
func (ww *watchWriter) Write(p []byte) (int, error) {
	if ww.atStart && len(p) > 0 {
		ww.started.Add(1)
		ww.atStart = false
	}
	n, err := ww.w.Write(p)
	if n > 0 && n == len(p) && p[n-1] == '\n' {
		ww.atStart = true
		ww.done.Store(ww.started.Load())
		if ww.waiters.Load() > 0 {
			ww.mu.Lock()
			close(ww.wake)
			ww.wake = make(chan struct{})
			ww.mu.Unlock()
		}
	}
	return n, err
}

// Close closes the underlying writer if it is an io.Closer (wire closes
// its writer to end the connection).
func (ww *watchWriter) Close() error {
	ww.closeOnce.Do(func() { close(ww.closed) })
	if c, ok := ww.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// SetWriteDeadline forwards to the underlying writer, so wire can still
// use deadlines on a pollable pipe; os.ErrNoDeadline tells it there are
// none.
func (ww *watchWriter) SetWriteDeadline(t time.Time) error {
	if d, ok := ww.w.(interface{ SetWriteDeadline(time.Time) error }); ok {
		return d.SetWriteDeadline(t)
	}
	return os.ErrNoDeadline
}

// mark is the moment to wait past.
func (ww *watchWriter) mark() uint64 { return ww.started.Load() }

// waitPast waits until a frame started after mark has been written, stop
// closes, or (when limit > 0) limit passes. It reports whether the frame
// was written.
func (ww *watchWriter) waitPast(mark uint64, stop <-chan struct{}, limit time.Duration) bool {
	ww.waiters.Add(1)
	defer ww.waiters.Add(-1)
	var expire <-chan time.Time
	if limit > 0 {
		t := time.NewTimer(limit)
		defer t.Stop()
		expire = t.C
	}
	for {
		ww.mu.Lock()
		wake := ww.wake
		ww.mu.Unlock()
		if ww.done.Load() > mark {
			return true
		}
		select {
		case <-wake:
		case <-stop:
			return false
		case <-expire:
			return false
		}
	}
}
