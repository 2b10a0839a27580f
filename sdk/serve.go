package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
)

// Options configure Serve. The zero value serves stdin/stdout.
type Options struct {
	// Stdin and Stdout are the transport; nil means os.Stdin/os.Stdout.
	// Serve takes ownership and closes them when it ends (if they are
	// io.Closers).
	Stdin  io.Reader
	Stdout io.Writer
	// Name and Version fill the handshake when Plugin.Name/Version are
	// empty (before the REASONIX_PLUGIN_* fallbacks).
	Name, Version string
	// PluginID is the installed plugin id that completes relative
	// provider refs; default $REASONIX_PLUGIN_NAME, else the handshake
	// name.
	PluginID string
	// Logger receives diagnostics; the default writes warnings to stderr,
	// whose tail the host shows when the sidecar fails.
	Logger *slog.Logger
}

// closeGrace bounds how long Serve waits, when it ends, for callbacks and
// streams that ignore their cancelled context. After it Serve returns
// anyway: a sidecar process exits right after, and a plugin bug must not
// keep it alive.
const closeGrace = 2 * time.Second

// maxStreams bounds the provider streams open at once: each has a
// goroutine, and the host never needs more than a handful.
const maxStreams = wire.SDKMaxHandlers

// Serve runs p over the transport until the host shuts it down or closes
// its end. It returns nil after extension/shutdown or at EOF, ctx.Err()
// when ctx ends, and otherwise the error that ended the connection: a
// refused handshake (unsupported_version, ...), a frame over the limit, a
// broken or stalled pipe.
func Serve(ctx context.Context, p *Plugin, opts Options) error {
	if p == nil {
		p = &Plugin{}
	}
	s := newServer(p, opts)
	r, w := opts.Stdin, opts.Stdout
	if r == nil {
		r = stdio(os.Stdin, false)
		s.detached = true
	}
	if w == nil {
		w = stdio(os.Stdout, true)
	}
	s.out = newWatchWriter(w)
	in := newHoldReader(r)
	s.conn = wire.New(in, s.out, wire.Options{
		Handler:        s.handleCounted,
		NotifyHandler:  s.notifyCounted,
		Gate:           s.gate,
		Skip:           s.skip,
		MaxHandlers:    wire.SDKMaxHandlers,
		NotifyOverflow: wire.DropOnOverflow,
		Logger:         s.log,
	})
	hosts.Store(s.conn, s.host)
	defer hosts.Delete(s.conn)
	in.release()

	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case <-s.conn.Done():
		err = connResult(s.conn.Err())
	case <-s.stopped:
	}
	if stopped, stopErr := s.stopResult(); stopped {
		err = stopErr
		// Close only once the last answer is out: Close drops frames
		// that wire has not queued yet.
		s.out.waitPast(s.stopMark, s.conn.Done(), closeGrace)
	}
	s.teardown()
	return err
}

// Main serves p on stdin/stdout and exits the process: 0 after a clean
// shutdown, EOF, SIGINT or SIGTERM, and 1 (with the reason on stderr) when
// the connection failed or the handshake was refused.
func Main(p *Plugin, opts Options) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := Serve(ctx, p, opts)
	signalled := ctx.Err() != nil
	stop()
	if err != nil && !(signalled && errors.Is(err, context.Canceled)) {
		name := opts.Name
		if p != nil {
			name = firstNonBlank(p.Name, name)
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", firstNonBlank(name, os.Getenv("REASONIX_PLUGIN_NAME"), "sidecar"), err)
		os.Exit(1)
	}
}

// connResult maps the connection's terminal error to Serve's result: the
// host closing our stdin is the normal way to end.
func connResult(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, wire.ErrClosed) {
		return nil
	}
	return err
}

// server is one Serve call: the connection, the barrier and the live
// streams.
type server struct {
	p    *Plugin
	opts Options
	log  *slog.Logger
	conn *wire.Conn
	out  *watchWriter
	host *Host

	phase  atomic.Int32
	opened atomic.Bool // the barrier opened: host-bound calls may go out

	// Written by the initialize handler before the barrier opens, read
	// only after it: the atomics order them.
	init      extproto.InitializeParams
	providers map[string]*Provider
	catalog   []extproto.ProviderDescriptor

	streamMu  sync.Mutex
	streams   map[string]*Stream
	streamsWG sync.WaitGroup
	closing   bool

	bg sync.WaitGroup // shutdown hook runs

	stopOnce sync.Once
	stopped  chan struct{}
	stopErr  error
	stopMark uint64

	surfaces atomic.Int64

	// detached: the transport is the process's stdin, read with plain
	// blocking reads (stdio) that closing cannot interrupt.
	detached bool
	// active counts the request and notification callbacks running.
	active atomic.Int32
}

func newServer(p *Plugin, opts Options) *server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	s := &server{p: p, opts: opts, log: log, stopped: make(chan struct{}), streams: make(map[string]*Stream)}
	s.host = &Host{s: s}
	return s
}

// stop ends Serve with err after the answer being sent now is written.
// Call it before the answer is queued (while encoding it, or before the
// handler returns).
func (s *server) stop(err error) {
	s.stopOnce.Do(func() {
		s.stopErr, s.stopMark = err, s.out.mark()
		close(s.stopped)
	})
}

func (s *server) stopResult() (bool, error) {
	select {
	case <-s.stopped:
		return true, s.stopErr
	default:
		return false, nil
	}
}

// teardown cancels the streams and closes the connection, which drains
// the frames already queued (a shutdown answer among them) and cancels
// every callback's context. Both waits are bounded by closeGrace.
func (s *server) teardown() {
	s.streamMu.Lock()
	s.closing = true
	for _, st := range s.streams {
		st.cancel()
	}
	s.streamMu.Unlock()

	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.conn.Close()
		s.streamsWG.Wait()
		s.bg.Wait()
	}()
	// With a detached stdin, Close also waits for the read in progress,
	// which ends only when the host closes its end (it does once it sees
	// our stdout close, or after the shutdown answer). Serve need not:
	// the writer's drain and every callback done is the end.
	var settled chan struct{}
	if s.detached {
		settled = make(chan struct{})
		go func() {
			defer close(settled)
			<-s.out.closed
			for s.active.Load() > 0 {
				time.Sleep(time.Millisecond)
			}
			s.streamsWG.Wait()
			s.bg.Wait()
		}()
	}
	select {
	case <-done:
	case <-settled:
	case <-time.After(closeGrace):
		s.log.Warn("sdk: callbacks still running after the connection closed; returning anyway", "grace", closeGrace)
	}
}

// handleCounted and notifyCounted are handle and notify, counted in
// active for teardown.
func (s *server) handleCounted(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	s.active.Add(1)
	defer s.active.Add(-1)
	return s.handle(ctx, method, raw)
}

func (s *server) notifyCounted(ctx context.Context, method string, raw json.RawMessage) {
	s.active.Add(1)
	defer s.active.Add(-1)
	s.notify(ctx, method, raw)
}
