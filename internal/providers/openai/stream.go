package openai

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

var (
	// errIdle is the cancel cause when the server went silent for longer
	// than the idle timeout.
	errIdle = errors.New("idle timeout")
	// errClosed is the cancel cause of Close.
	errClosed = errors.New("stream closed")
)

// stream is one streamed completion. It reads the body on the caller's
// goroutine inside Next: there is no background reader to leak, and a
// caller that stops calling Next simply stops the download.
type stream struct {
	p      *Provider
	ref    string
	ctx    context.Context
	cancel context.CancelCauseFunc
	body   io.ReadCloser
	sse    *sseReader
	dec    decoder
	idle   *idleReader

	queue []extproto.ProviderChunk
	err   error
	eof   bool
	// emitted counts chunks handed to the caller, for error texts.
	emitted   int
	closeOnce sync.Once
}

func newStream(p *Provider, ref string, ctx context.Context, cancel context.CancelCauseFunc, body io.ReadCloser) *stream {
	idle := newIdleReader(body, p.cfg.IdleTimeout, func() { cancel(errIdle) })
	return &stream{p: p, ref: ref, ctx: ctx, cancel: cancel, body: body, idle: idle, sse: newSSEReader(idle)}
}

// waitFirstByte blocks until the body yields its first byte (buffered for
// the SSE reader) or fails.
func (s *stream) waitFirstByte() error {
	_, err := s.sse.r.Peek(1)
	return err
}

// Next returns the next chunk, io.EOF after done, or the stream's error.
func (s *stream) Next() (extproto.ProviderChunk, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return extproto.ProviderChunk{}, s.err
		}
		if s.eof {
			return extproto.ProviderChunk{}, io.EOF
		}
		s.fill()
	}
	ch := s.queue[0]
	s.queue = s.queue[1:]
	s.emitted++
	return ch, nil
}

// fill reads events until the decoder yields chunks, the stream ends, or
// it fails. Chunks decoded before a failure are still delivered first.
func (s *stream) fill() {
	if err := s.ctx.Err(); err != nil {
		s.err = s.readError(err)
		s.Close()
		return
	}
	ev, err := s.sse.next()
	if err != nil {
		if errors.Is(err, io.EOF) && s.ctx.Err() == nil {
			chunks, f := s.dec.eof()
			s.queue = append(s.queue, chunks...)
			s.end(f)
			return
		}
		s.err = s.readError(err)
		s.Close()
		return
	}
	chunks, f := s.dec.event(ev)
	s.queue = append(s.queue, chunks...)
	if f != nil || s.dec.done {
		s.end(f)
	}
}

// end finishes the stream after done or a decoder fault; the connection is
// released at once rather than when the caller gets round to Close.
func (s *stream) end(f *fault) {
	if f != nil {
		s.err = s.p.faultError(s.ref, f)
	} else {
		s.eof = true
	}
	s.Close()
}

// readError words a failed read: the caller's cancellation, the idle
// timeout, an oversized event, or a cut connection.
func (s *stream) readError(err error) *extproto.Error {
	switch cause := context.Cause(s.ctx); {
	case errors.Is(cause, errIdle):
		return s.p.errorf(extproto.ReasonProviderInterrupted, "", "%s: the server sent nothing for %v", s.ref, s.p.cfg.IdleTimeout)
	case errors.Is(cause, errClosed):
		return s.p.errorf(extproto.ReasonProviderInterrupted, "", "%s: the stream was closed after %d chunks", s.ref, s.emitted)
	case s.ctx.Err() != nil:
		return s.p.errorf(extproto.ReasonProviderInterrupted, "", "%s: stream stopped after %d chunks: %w", s.ref, s.emitted, cause)
	case errors.Is(err, errEventTooLarge):
		return s.p.errorf(extproto.ReasonProviderFailed, "", "%s: %v", s.ref, err)
	}
	return s.p.errorf(extproto.ReasonProviderInterrupted, "", "%s: the stream was cut after %d chunks: %v", s.ref, s.emitted, err)
}

// Close stops the request and releases the connection. It may be called
// more than once, and from another goroutine to abort a blocked Next.
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		s.idle.stop()
		s.cancel(errClosed)
		s.body.Close()
	})
	return nil
}

// idleReader fails a body that stays silent too long. The timer runs only
// while a Read is waiting on the server, so a caller that is slow to ask
// for the next chunk is never mistaken for a silent server.
type idleReader struct {
	r       io.Reader
	timeout time.Duration
	timer   *time.Timer
}

func newIdleReader(r io.Reader, timeout time.Duration, onIdle func()) *idleReader {
	t := time.AfterFunc(time.Hour, onIdle)
	t.Stop()
	return &idleReader{r: r, timeout: timeout, timer: t}
}

func (ir *idleReader) Read(b []byte) (int, error) {
	ir.timer.Reset(ir.timeout)
	n, err := ir.r.Read(b)
	ir.timer.Stop()
	return n, err
}

func (ir *idleReader) stop() { ir.timer.Stop() }
