package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is one strict NDJSON JSON-RPC 2.0 connection. Its goroutines, all
// stopped by Close: the reader (framing, envelope validation, the gate,
// dispatch; the role passes between a small pool of goroutines that also
// run request handlers, bounded by Options.MaxHandlers), the writer
// (queue order, never interleaving frames), the stall watchdog, and the
// ordered notification worker.
//
// The Conn takes ownership of r and w: when it ends it closes them if they
// are io.Closers, which is also how it interrupts a blocked read or write.
type Conn struct {
	opts Options
	r    io.Reader
	w    io.Writer

	// ctx is the handlers' context: it carries the Conn and is cancelled
	// when the connection ends.
	ctx    context.Context
	cancel context.CancelFunc

	out    chan *frameBuf
	queued atomic.Int64 // frames sent on out and not yet written or skipped
	wmu    sync.Mutex   // held for every physical write
	// partial is a frame whose inline write timed out part-way (guarded by
	// wmu); the writer finishes it before anything else. kick wakes the
	// writer for it.
	partial    *frameBuf
	partialOff int
	kick       chan struct{}
	// try is a non-blocking write attempt on w, when w is a pollable
	// file (tryWrite in trywrite_unix.go); nil otherwise.
	try *tryWriter
	// readRole hands the reading role to an idle goroutine (unbuffered:
	// a send succeeds only when one is waiting; see read.go).
	readRole chan *readState
	// Callers reading their own answers (lead.go); role is nil when they
	// never do.
	role          chan *readState
	roleTimer     *time.Timer
	rd            readDeadliner
	leadMu        sync.Mutex
	leader        *pendingCall
	idle          atomic.Int32
	notifications chan notification
	notifyDone    chan struct{}

	nextID       atomic.Int64
	handlers     atomic.Int32
	events       atomic.Int32
	errQueueFull error
	dq           deferQueue // DeferNotify frames (defer.go)

	mu      sync.Mutex
	pending map[int64]*pendingCall
	err     error // terminal error, set once before done closes
	drain   bool  // whether the writer may flush queued frames after done
	timer   *time.Timer
	done    chan struct{}

	epoch      time.Time
	writeStart atomic.Int64 // since epoch (+1) when a physical write began; 0 when idle

	closeW, closeR sync.Once
	wErr, rErr     error
	wg             sync.WaitGroup
}

type notification struct {
	method string
	params json.RawMessage
}

type connKey struct{}

// ConnFromContext returns the Conn whose handler received ctx, or nil.
func ConnFromContext(ctx context.Context) *Conn {
	c, _ := ctx.Value(connKey{}).(*Conn)
	return c
}

// New starts a connection that reads frames from r and writes frames to w.
func New(r io.Reader, w io.Writer, opts Options) *Conn {
	o := opts.withDefaults()
	c := &Conn{
		opts:       o,
		r:          r,
		w:          w,
		out:        make(chan *frameBuf, o.OutQueue),
		readRole:   make(chan *readState),
		notifyDone: make(chan struct{}),
		pending:    make(map[int64]*pendingCall),
		done:       make(chan struct{}),
		epoch:      time.Now(),
		kick:       make(chan struct{}, 1),
	}
	c.try = newTryWriter(w)
	c.setupLead(r)
	c.ctx, c.cancel = context.WithCancel(context.WithValue(context.Background(), connKey{}, c))
	c.errQueueFull = fmt.Errorf("%w (limit %d)", ErrQueueFull, o.EventSlots)

	if o.NotifyHandler != nil {
		c.notifications = make(chan notification, o.NotifyQueue)
		c.wg.Add(1)
		go c.notifyLoop()
	} else {
		close(c.notifyDone)
	}
	// The reader starts last: every field it reads must already be set.
	c.wg.Add(2)
	go c.reader(&readState{fr: newFrameReader(r, o.MaxFrameBytes), p: newParser()})
	go c.writeLoop()
	if o.StallTimeout > 0 {
		c.wg.Add(1)
		go c.watchdog()
	}
	return c
}

// Done is closed when the connection has ended; Err then says why.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns the terminal error: nil while the connection is up, then
// ErrClosed after Close, an error wrapping io.EOF when the peer closed its
// side, a frame_too_large *protocol.Error, ErrWriteStall,
// ErrNotificationOverflow, a fatal gate error, or the read/write error.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection: pending calls fail with an error wrapping
// ErrClosed, frames already queued get Options.DrainTimeout to be
// written, r and w are closed, and Close returns once every goroutine of
// the Conn, handlers included, has returned (handlers see their context
// cancelled). It is idempotent. Because it waits for handlers, a handler
// must not call Close itself; it can start it on a new goroutine.
func (c *Conn) Close() error {
	c.fail(ErrClosed, true)
	c.wg.Wait()
	c.closeWriter()
	// A caller reading (lead.go) may have failed the connection first and
	// still be closing r on its own goroutine, which wg does not count:
	// this waits for that close, so rErr is read after it.
	c.closeReader()
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	if c.roleTimer != nil {
		c.roleTimer.Stop()
	}
	c.stopDeferred()
	return errors.Join(ignoreClosed(c.wErr), ignoreClosed(c.rErr))
}

func ignoreClosed(err error) error {
	if errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) {
		return nil
	}
	return err
}

// fail ends the connection with err, once. drain lets the writer flush
// frames already queued (answers, notifications) for DrainTimeout; a
// broken or stalled writer gets no drain.
func (c *Conn) fail(err error, drain bool) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err, c.drain = err, drain
	pending := c.pending
	c.pending = nil
	if drain {
		c.timer = time.AfterFunc(c.opts.DrainTimeout, c.closeWriter)
	}
	close(c.done)
	c.mu.Unlock()

	c.cancel()
	for _, p := range pending {
		p.frame.drop(p.token)
		p.ch <- reply{err: fmt.Errorf("wire: call %q (id %d) aborted: %w", p.method, p.id, err)}
	}
	if !drain {
		c.closeWriter()
	}
	c.closeReader()
}

func (c *Conn) closeWriter() {
	c.closeW.Do(func() {
		if cl, ok := c.w.(io.Closer); ok {
			c.wErr = cl.Close()
		}
	})
}

func (c *Conn) closeReader() {
	c.closeR.Do(func() {
		if cl, ok := c.r.(io.Closer); ok {
			c.rErr = cl.Close()
		}
	})
}

// terminal returns the terminal error once done is closed (the write
// before close(done) makes the unlocked read safe).
func (c *Conn) terminal() error { return c.err }

func (c *Conn) now() int64 { return int64(time.Since(c.epoch)) + 1 }

func (c *Conn) traceFrame(inbound bool, frame []byte) {
	if c.opts.Trace != nil {
		c.opts.Trace(inbound, frame)
	}
}
