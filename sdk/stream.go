package sdk

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// ErrStreamClosed is returned by Stream methods once the stream has ended:
// cancelled by the host, ended by an error chunk, or the connection gone.
var ErrStreamClosed = errors.New("sdk: the provider stream has ended")

// invalidChunk is the end error for a chunk that fails validation; the
// host then fails the stream as provider_failed.
const invalidChunk = "the extension provider produced an invalid chunk"

// Stream is the write side of one provider stream. Its methods send one
// chunk each, numbered from the open's seqBase (at least 1) without gaps,
// and block while the outbound queue (256 frames) is full: a chunk is
// never dropped, and a host that stops reading fails the connection
// through the write-stall bound. Use it from one goroutine at a time.
type Stream struct {
	s      *server
	open   *extproto.StreamOpenParams
	ctx    context.Context
	cancel context.CancelFunc

	// acked is closed while the open's answer is being encoded, with
	// ackMark the writer's position then; the first chunk waits until the
	// writer is past it, so the host sees the ack before chunk 1.
	acked       chan struct{}
	ackMark     uint64
	releaseOnce sync.Once
	ackOut      chan struct{} // closed once the ack is known written
	ackOutOnce  sync.Once

	// mu orders chunk sends against the end: once ended is set no chunk
	// is queued, so nothing follows the end on the wire.
	mu    sync.Mutex
	next  int64
	last  int64
	ended bool
	over  atomic.Bool // ended, readable without mu
}

func newStream(parent context.Context, s *server, open *extproto.StreamOpenParams) *Stream {
	ctx, cancel := context.WithCancel(parent)
	return &Stream{s: s, open: open, ctx: ctx, cancel: cancel, acked: make(chan struct{}), ackOut: make(chan struct{}), next: max(open.SeqBase, 1)}
}

func (st *Stream) release() {
	st.releaseOnce.Do(func() {
		st.ackMark = st.s.out.mark()
		close(st.acked)
	})
}

// awaitAck holds the stream's first frame, chunk or end, until the open's
// answer is written, or stop closes.
func (st *Stream) awaitAck(stop <-chan struct{}) bool {
	select {
	case <-st.ackOut:
		return true
	default:
	}
	select {
	case <-st.acked:
	case <-stop:
		return false
	}
	if !st.s.out.waitPast(st.ackMark, stop, 0) {
		return false
	}
	st.ackOutOnce.Do(func() { close(st.ackOut) })
	return true
}

// run is the stream's goroutine: it runs the producer and ends the
// stream with its outcome.
func (st *Stream) run(prov *Provider) {
	defer st.s.streamsWG.Done()
	defer st.s.forgetStream(st)
	defer st.cancel()
	err := st.produce(prov)
	switch {
	case err == nil:
		st.end(extproto.StreamEndParams{})
	case st.ctx.Err() != nil:
		// Cancelled (already ended interrupted) or the connection is
		// gone (nobody to tell).
		st.end(extproto.StreamEndParams{Interrupted: true})
	default:
		msg := err.Error()
		if msg == "" {
			msg = "the extension provider failed"
		}
		st.end(extproto.StreamEndParams{Error: msg})
	}
}

func (st *Stream) produce(prov *Provider) (err error) {
	defer func() {
		if v := recover(); v != nil {
			st.s.log.Error("sdk: provider stream panicked", "ref", st.open.ProviderRef, "panic", v, "stack", string(debug.Stack()))
			err = errors.New("the extension provider panicked")
		}
	}()
	return prov.Stream(st.ctx, st.open, st)
}

// interrupt is stream/cancel: no chunk is queued after it, and the end
// (interrupted, at the last chunk sent) goes out now rather than when the
// producer gets round to noticing. It reports whether the stream was
// still live.
func (st *Stream) interrupt() bool {
	// Live is decided before the cancel: once cancelled, the producer
	// may end the stream itself (interrupted too) before the end below.
	// (Not under mu: a send holding it may be blocked on a full queue
	// until the cancel.)
	live := !st.over.Load()
	// Cancel first: a send blocked on a full queue gives up its slot.
	st.cancel()
	st.end(extproto.StreamEndParams{Interrupted: true})
	return live
}

// end sends the stream's only end frame; later calls do nothing and
// report false. Even a cancelled stream's end waits for the ack: the host
// may cancel before the ack reached it.
func (st *Stream) end(e extproto.StreamEndParams) bool {
	st.awaitAck(st.s.conn.Done())
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.ended {
		return false
	}
	st.ended = true
	st.over.Store(true)
	e.StreamID, e.LastSeq = st.open.StreamID, st.last
	// Not the stream's context: the end must go out although the stream
	// is cancelled. The wait for queue room still ends with the
	// connection.
	if err := st.s.conn.Notify(context.Background(), extproto.MethodStreamEnd, e); err != nil {
		st.s.log.Debug("sdk: stream end not sent", "stream", st.open.StreamID, "err", err)
	}
	return true
}

// Send sends one chunk. An error chunk is not forwarded: it ends the
// stream with the chunk's message as the end's error (interrupted for
// provider_interrupted), as the host expects. A chunk that fails
// validation ends the stream as failed and returns the validation error.
func (st *Stream) Send(c extproto.ProviderChunk) error {
	if !st.awaitAck(st.ctx.Done()) {
		return ErrStreamClosed
	}
	if err := c.Validate(); err != nil {
		st.end(extproto.StreamEndParams{Error: invalidChunk})
		return fmt.Errorf("sdk: invalid %s chunk: %w", c.Type, err)
	}
	if c.Type == extproto.ChunkError {
		if !st.end(extproto.StreamEndParams{Error: c.Error.Message, Interrupted: c.Error.Code == extproto.ProviderCodeInterrupted}) {
			return ErrStreamClosed
		}
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// A cancelled stream takes no chunk, even before interrupt has sent
	// its end: it cancels first, and a chunk queued in between would
	// follow the host's cancel.
	if st.ended || st.ctx.Err() != nil {
		return ErrStreamClosed
	}
	seq := st.next
	if err := st.s.conn.Notify(st.ctx, extproto.MethodStreamChunk, extproto.StreamChunkParams{StreamID: st.open.StreamID, Seq: seq, Chunk: c}); err != nil {
		if st.ctx.Err() != nil {
			return ErrStreamClosed
		}
		return fmt.Errorf("sdk: stream %s chunk %d: %w", st.open.StreamID, seq, err)
	}
	st.last, st.next = seq, seq+1
	return nil
}

// Text sends an assistant text delta.
func (st *Stream) Text(text string) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkText, Text: text})
}

// Reasoning sends a reasoning delta with its optional signature.
func (st *Stream) Reasoning(text, signature string) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkReasoning, Text: text, Signature: signature})
}

// ToolCallStart announces a tool call; its arguments follow.
func (st *Stream) ToolCallStart(id, name string) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkToolCallStart, ToolCall: &extproto.ProviderToolCall{ID: id, Name: name}})
}

// ToolCallArgs reports argument streaming progress: argChars characters
// of arguments so far, with the new text.
func (st *Stream) ToolCallArgs(argChars int, text string) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkToolCallArgsDelta, ArgChars: argChars, Text: text})
}

// ToolCall sends a complete tool call (Arguments is its JSON text).
func (st *Stream) ToolCall(call extproto.ProviderToolCall) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkToolCall, ToolCall: &call})
}

// Usage sends the turn's token accounting.
func (st *Stream) Usage(u extproto.ProviderUsage) error {
	return st.Send(extproto.ProviderChunk{Type: extproto.ChunkUsage, Usage: &u})
}

// Done marks the logical end of the assistant turn; the stream itself
// ends when the producer returns.
func (st *Stream) Done() error { return st.Send(extproto.ProviderChunk{Type: extproto.ChunkDone}) }
