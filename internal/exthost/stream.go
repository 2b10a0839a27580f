package exthost

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Bounds of one provider stream (PROTOCOL_DETAILS §6.6).
const (
	streamPendingWindow = 256 // out-of-order chunks held ahead of the next seq
	streamGapTimeout    = time.Second
	streamBatch         = 64 // initial room of the queue and of the consumer's batch
	// streamBufferBytes bounds, in bytes (chunkCost), what one stream
	// holds for its consumer: chunks in order not yet handed out, queued
	// or in the consumer's batch. It is a byte bound, not a chunk count
	// (issue 28): a provider may send thousands of tiny deltas faster than
	// an editor takes them, and adjacent text or reasoning deltas are
	// merged as they queue, so a slow consumer costs bytes, not chunks.
	// Only a consumer this far behind fails its stream, alone, with
	// "output overflow" (never a silent drop, never the sidecar). It is
	// one frame (extproto.FrameBytes): a chunk that fits a frame fits an
	// empty buffer.
	streamBufferBytes = 8 << 20
	// chunkOverhead is what chunkCost charges a chunk beyond its strings.
	chunkOverhead = 128
	// streamMergeBytes caps the text of a merged chunk: a consumer that
	// forwards chunks (rx/lm/chunk, an ACP update) gets frames of a sane
	// size, and a merge copies at most this much.
	streamMergeBytes = 64 << 10
)

// chunkCost is what a chunk counts against streamBufferBytes: its
// strings plus a fixed overhead. Merging a delta into the chunk before it
// adds only the delta's strings, so the cost of a merged chunk is the sum
// its parts added.
func chunkCost(c *extproto.ProviderChunk) int {
	n := chunkOverhead + len(c.Text) + len(c.Signature)
	if tc := c.ToolCall; tc != nil {
		n += len(tc.ID) + len(tc.Name) + len(tc.Arguments) + len(tc.ThoughtSignature)
	}
	if c.Error != nil {
		n += len(c.Error.Message)
	}
	if c.Usage != nil {
		n += len(c.Usage.FinishReason)
	}
	return n
}

// openDelta reports whether c may take the deltas that follow it: a text
// or reasoning chunk with nothing but its text. A signed reasoning chunk
// closes its run (the signature covers what came before it).
func openDelta(c *extproto.ProviderChunk) bool {
	return (c.Type == extproto.ChunkText || c.Type == extproto.ChunkReasoning) &&
		c.Signature == "" && c.ArgChars == 0 && c.ToolCall == nil && c.Usage == nil && c.Error == nil
}

// ProviderStream is one extension provider stream seen from the host: it
// reorders chunks by seq, drops duplicates, detects gaps once stream/end
// froze lastSeq, and turns the end into a clean EOF or a provider error.
// Next blocks until a chunk, the end, or the consumer's context.
//
// Delivery is batched (issue 20): the consumer takes every queued chunk
// at once and hands them out from its own batch without the lock, and
// the producer wakes it only when it waits, so a run of chunks costs one
// wake-up instead of one each.
//
// Chunks are fed by the sidecar's reading goroutine itself (Sidecar.skip),
// never through the connection's bounded notification queue, and feeding
// never waits for the consumer: while it is behind, adjacent text deltas
// (or reasoning deltas) merge into one chunk, in order, so a consumer sees
// every byte of every chunk, possibly in fewer chunks. Chunks of other
// types (tool calls, usage, done, error) are never merged, and a merge
// never crosses one. What waits is bounded by streamBufferBytes.
type ProviderStream struct {
	s   *Sidecar
	id  string
	ref string
	ctx context.Context
	// stop ends the consumer side: it is called when ctx ends.
	stop func() bool
	// behalf numbers the stream's record as a call on behalf of its
	// consumer's session (behalf.go): the sidecar serves that session
	// until the stream is closed or its consumer's context ends.
	behalf uint64

	mu      sync.Mutex
	next    int64                            // next seq to deliver
	pending map[int64]extproto.ProviderChunk // ahead of next; made on the first reordered chunk
	queue   []extproto.ProviderChunk         // in order, not yet taken by the consumer
	// tail, when open, holds the text of the queue's last chunk (whose
	// Text is stale until the consumer takes the queue): deltas merge by
	// appending here, not by copying a growing string.
	tail       []byte
	tailOpen   bool
	queueBytes int  // chunkCost of the queue
	maxBuffer  int  // most bytes ever held (queueBytes + outBytes): a test hook
	waiting    bool // the consumer waits on wake
	end        *extproto.StreamEndParams
	gap        *time.Timer
	err        error // terminal; io.EOF for a clean end
	// overflowed is set when the consumer fell streamBufferBytes behind.
	overflowed bool
	wake       chan struct{}
	closed     bool

	// The consumer's batch, owned by the goroutine calling Next; out is
	// swapped with queue under mu. outI is the next chunk of out to hand
	// out (atomic: the producer reads it to bound what is undelivered).
	out  []extproto.ProviderChunk
	outI atomic.Int32
	// outBytes is the chunkCost of the batch's chunks not handed out yet
	// (the producer reads it to bound what is undelivered).
	outBytes atomic.Int64
	// dropped is set when the stream failed discarding what was queued
	// (a cancel): the consumer's batch is then not delivered either.
	dropped atomic.Bool
}

func newStreamID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "es_" + hex.EncodeToString(b[:])
}

// OpenStream opens a stream on the sidecar's provider ref. ctx governs the
// whole stream: when it ends, delivery stops, stream/cancel is sent, and
// nothing is delivered after it.
func (s *Sidecar) OpenStream(ctx context.Context, ref, model, effort string, req extproto.ProviderRequest) (*ProviderStream, error) {
	if err := ctx.Err(); err != nil {
		return nil, consumerGone(s, ref, err)
	}
	ps := newProviderStream(s, newStreamID(), ref, ctx)
	ps.behalf = s.behalf.enter(SessionOf(ctx))
	// Registered before the open goes out: chunk 1 may beat our reading
	// of the ack.
	s.streamsMu.Lock()
	if s.streams == nil {
		s.streams = map[string]*ProviderStream{}
	}
	s.streams[ps.id] = ps
	s.streamsMu.Unlock()

	// The chunks follow the ack at once: the reading role goes back to a
	// reader goroutine as soon as the ack is read (wire.HandBack).
	raw, err := s.Call(wire.HandBack(ctx), extproto.MethodStreamOpen, extproto.StreamOpenParams{StreamID: ps.id, ProviderRef: ref, Model: model, Effort: effort, Request: req, SeqBase: 1})
	if err == nil {
		var v any
		if v, err = extproto.DecodeResult(extproto.MethodStreamOpen, raw); err == nil && !v.(*extproto.StreamOpenResult).Accepted {
			err = errDeclined
		}
	}
	if err != nil {
		s.behalf.leave(ps.behalf)
		ps.fail(openError(s, ref, model, ctx, err))
		ps.cancelRemote()
		return nil, ps.err
	}
	ps.stop = context.AfterFunc(ctx, func() {
		s.behalf.leave(ps.behalf)
		ps.fail(consumerGone(s, ref, ctx.Err()))
		ps.cancelRemote()
	})
	return ps, nil
}

func newProviderStream(s *Sidecar, id, ref string, ctx context.Context) *ProviderStream {
	return &ProviderStream{s: s, id: id, ref: ref, ctx: ctx, next: 1, wake: make(chan struct{}, 1)}
}

// consumerGone is the stream's end when its consumer's context ended:
// interrupted, with the context's error in the chain.
func consumerGone(s *Sidecar, ref string, ctxErr error) error {
	return extproto.Errorf(extproto.ReasonProviderInterrupted, "extension %s provider stream %q: %w", s.Plugin.ID, ref, ctxErr)
}

// errDeclined is a stream/open answered accepted:false.
var errDeclined = errors.New("declined")

// openError is the error of a failed stream/open. Whatever the sidecar
// answered (accepted:false, or an error whose text is the plugin's own),
// it names the plugin, the ref and the model, so the user's error says
// who refused what. An interrupted open stays provider_interrupted;
// every other failure is provider_failed.
func openError(s *Sidecar, ref, model string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return consumerGone(s, ref, ctx.Err())
	}
	what := strconv.Quote(ref)
	if model != "" {
		what += " (model " + strconv.Quote(model) + ")"
	}
	if err == errDeclined {
		return extproto.Errorf(extproto.ReasonProviderFailed, "extension %s declined provider stream %s", s.Plugin.ID, what)
	}
	reason := extproto.ReasonProviderFailed
	if extproto.ReasonOf(err) == extproto.ReasonProviderInterrupted {
		reason = extproto.ReasonProviderInterrupted
	}
	return extproto.Errorf(reason, "extension %s could not open provider stream %s: %w", s.Plugin.ID, what, err)
}

// Next returns the next chunk in seq order. An `error` chunk is returned
// as its error; after a clean end Next returns io.EOF. One goroutine
// consumes a stream.
func (ps *ProviderStream) Next() (extproto.ProviderChunk, error) {
	for {
		if err := ps.ctx.Err(); err != nil {
			// The consumer cancelled: whatever is queued is not delivered,
			// even before the cancel callback has run.
			ps.fail(consumerGone(ps.s, ps.ref, err))
			ps.cancelRemote()
		}
		if i := ps.outI.Load(); int(i) < len(ps.out) && !ps.dropped.Load() {
			c := ps.out[i]
			ps.outI.Store(i + 1)
			ps.outBytes.Add(-int64(chunkCost(&c)))
			if c.Type == extproto.ChunkError && c.Error != nil {
				err := extproto.Errorf(c.Error.Code.Reason(), "extension %s provider %q: %s", ps.s.Plugin.ID, ps.ref, redact.String(c.Error.Message))
				ps.fail(err)
				ps.cancelRemote()
				return extproto.ProviderChunk{}, err
			}
			return c, nil
		}
		ps.mu.Lock()
		if len(ps.queue) > 0 {
			// Take the whole run; the producer appends to our old batch.
			ps.closeTailLocked()
			clear(ps.out)
			ps.out, ps.queue = ps.queue, ps.out[:0]
			ps.outBytes.Store(int64(ps.queueBytes))
			ps.queueBytes = 0
			ps.outI.Store(0)
			ps.mu.Unlock()
			continue
		}
		if ps.err != nil {
			err := ps.err
			ps.mu.Unlock()
			return extproto.ProviderChunk{}, err
		}
		ps.waiting = true
		ps.mu.Unlock()
		<-ps.wake
	}
}

// Close releases the stream; an unfinished stream is cancelled on the
// sidecar. It is idempotent.
func (ps *ProviderStream) Close() error {
	ps.mu.Lock()
	unfinished := ps.err == nil
	ps.mu.Unlock()
	if unfinished {
		ps.fail(extproto.NewError(extproto.ReasonStreamCancelled, fmt.Sprintf("provider stream %q was closed by its consumer", ps.ref)))
		ps.cancelRemote()
	}
	if ps.stop != nil {
		ps.stop()
	}
	ps.s.behalf.leave(ps.behalf)
	return nil
}

// cancelRemote tells the sidecar, best effort and bounded, to stop.
func (ps *ProviderStream) cancelRemote() {
	ps.mu.Lock()
	if ps.closed {
		ps.mu.Unlock()
		return
	}
	ps.closed = true
	ps.mu.Unlock()
	ps.s.dropStream(ps.id)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), extproto.StreamCancelTimeout)
		defer cancel()
		_, _ = ps.s.Call(ctx, extproto.MethodStreamCancel, extproto.StreamCancelParams{StreamID: ps.id})
	}()
}

// fail ends the stream with err unless it already ended; queued chunks
// are discarded so nothing is delivered after a cancel or failure.
func (ps *ProviderStream) fail(err error) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	ps.failLocked(err, true)
}

func (ps *ProviderStream) failLocked(err error, discard bool) {
	if ps.err != nil {
		return
	}
	ps.err = err
	if discard {
		ps.queue, ps.tail, ps.tailOpen, ps.queueBytes = nil, nil, false, 0
		ps.dropped.Store(true)
	}
	ps.pending = nil
	if ps.gap != nil {
		ps.gap.Stop()
	}
	ps.signal()
}

// wakeLocked wakes the consumer if it waits for a chunk.
func (ps *ProviderStream) wakeLocked() {
	if ps.waiting {
		ps.waiting = false
		ps.signal()
	}
}

func (ps *ProviderStream) signal() {
	select {
	case ps.wake <- struct{}{}:
	default:
	}
}

func (ps *ProviderStream) interrupted(format string, args ...any) error {
	return extproto.Errorf(extproto.ReasonProviderInterrupted, "extension %s provider %q: "+format, append([]any{ps.s.Plugin.ID, ps.ref}, args...)...)
}

// onChunk is called in arrival order by the sidecar's reading goroutine
// (Sidecar.skip); it never waits for the consumer. A stream whose
// consumer fell streamBufferBytes behind is failed and cancelled on the
// sidecar, alone.
func (ps *ProviderStream) onChunk(p *extproto.StreamChunkParams) {
	ps.mu.Lock()
	ps.chunkLocked(p)
	overflowed := ps.overflowed
	ps.mu.Unlock()
	if overflowed {
		ps.cancelRemote()
	}
}

func (ps *ProviderStream) chunkLocked(p *extproto.StreamChunkParams) {
	switch {
	case ps.err != nil || p.Seq < ps.next:
		return // finished, or a duplicate / stale copy
	case p.Seq >= ps.next+streamPendingWindow:
		ps.failLocked(ps.interrupted("chunk %d exceeds the pending window (next %d)", p.Seq, ps.next), false)
		return
	case ps.end != nil && p.Seq > ps.end.LastSeq:
		ps.failLocked(ps.interrupted("chunk %d arrived after stream/end with lastSeq %d", p.Seq, ps.end.LastSeq), false)
		return
	}
	if p.Seq == ps.next && len(ps.pending) == 0 {
		// In order, the common case: no detour through pending.
		if ps.enqueueLocked(&p.Chunk) {
			ps.settleLocked()
		}
		return
	}
	if ps.pending == nil {
		ps.pending = map[int64]extproto.ProviderChunk{}
	}
	ps.pending[p.Seq] = p.Chunk
	ps.flushLocked()
}

// enqueueLocked queues the chunk of seq next for the consumer, merged
// into the queue's last chunk when it is a delta of the same kind, or
// fails the stream when the consumer is streamBufferBytes behind.
func (ps *ProviderStream) enqueueLocked(c *extproto.ProviderChunk) bool {
	n := len(ps.queue)
	merge := ps.tailOpen && ps.queue[n-1].Type == c.Type && len(ps.tail)+len(c.Text) <= streamMergeBytes &&
		c.ArgChars == 0 && c.ToolCall == nil && c.Usage == nil && c.Error == nil &&
		(c.Signature == "" || c.Type == extproto.ChunkReasoning)
	cost := chunkCost(c)
	if merge {
		cost -= chunkOverhead
	}
	held := ps.queueBytes + int(ps.outBytes.Load())
	if held > 0 && held+cost > streamBufferBytes {
		ps.overflowed = true
		ps.failLocked(ps.interrupted("output overflow: the consumer fell %d MiB behind (the bound of one stream)", streamBufferBytes>>20), false)
		return false
	}
	switch {
	case merge:
		ps.tail = append(ps.tail, c.Text...)
		if c.Signature != "" {
			ps.queue[n-1].Signature = c.Signature
			ps.closeTailLocked()
		}
	default:
		ps.closeTailLocked()
		if ps.queue == nil {
			ps.queue = make([]extproto.ProviderChunk, 0, streamBatch)
		}
		ps.queue = append(ps.queue, *c)
		if openDelta(c) {
			ps.tail = append(ps.tail[:0], c.Text...)
			ps.tailOpen = true
		}
	}
	ps.queueBytes += cost
	ps.maxBuffer = max(ps.maxBuffer, held+cost)
	ps.next++
	ps.wakeLocked()
	return true
}

// closeTailLocked gives the queue's last chunk its merged text.
func (ps *ProviderStream) closeTailLocked() {
	if !ps.tailOpen {
		return
	}
	ps.tailOpen = false
	ps.queue[len(ps.queue)-1].Text = string(ps.tail)
	ps.tail = ps.tail[:0]
}

// flushLocked delivers the contiguous run from next, then settles.
func (ps *ProviderStream) flushLocked() {
	for {
		c, ok := ps.pending[ps.next]
		if !ok {
			break
		}
		delete(ps.pending, ps.next)
		if !ps.enqueueLocked(&c) {
			return
		}
	}
	ps.settleLocked()
}

// settleLocked completes the stream if stream/end was seen and nothing
// is missing, or starts the gap timer if something is.
func (ps *ProviderStream) settleLocked() {
	if ps.end == nil || ps.err != nil {
		return
	}
	if ps.next > ps.end.LastSeq {
		ps.completeLocked()
		return
	}
	if ps.gap == nil {
		missing, last := ps.next, ps.end.LastSeq
		ps.gap = time.AfterFunc(streamGapTimeout, func() {
			ps.mu.Lock()
			defer ps.mu.Unlock()
			if ps.err == nil && ps.next == missing {
				ps.failLocked(extproto.Errorf(extproto.ReasonStreamGap, "extension %s provider %q stream missing chunk %d of %d", ps.s.Plugin.ID, ps.ref, missing, last), false)
			} else if ps.err == nil {
				ps.gap = nil
				ps.flushLocked()
			}
		})
	}
}

func (ps *ProviderStream) onEnd(p *extproto.StreamEndParams) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.err != nil {
		return
	}
	if ps.end != nil {
		if *ps.end != *p {
			ps.failLocked(ps.interrupted("a second stream/end changed the first"), false)
		}
		return
	}
	if delivered := ps.next - 1; p.LastSeq < delivered {
		ps.failLocked(ps.interrupted("stream/end lastSeq %d is below chunk %d, already delivered", p.LastSeq, delivered), false)
		return
	}
	for seq := range ps.pending {
		if seq > p.LastSeq {
			ps.failLocked(ps.interrupted("chunk %d is beyond stream/end lastSeq %d", seq, p.LastSeq), false)
			return
		}
	}
	end := *p
	ps.end = &end
	ps.flushLocked()
}

// completeLocked turns a fully delivered end into the terminal state.
func (ps *ProviderStream) completeLocked() {
	e := ps.end
	switch {
	case e.Interrupted:
		msg := "extension provider stream was interrupted"
		if e.Error != "" {
			msg = redact.String(e.Error)
		}
		ps.failLocked(ps.interrupted("%s", msg), false)
	case e.Error != "":
		ps.failLocked(extproto.Errorf(extproto.ReasonProviderFailed, "extension %s provider %q: %s", ps.s.Plugin.ID, ps.ref, redact.String(e.Error)), false)
	default:
		ps.failLocked(io.EOF, false)
	}
	ps.s.dropStream(ps.id)
}

// routeChunk and routeEnd dispatch stream notifications; unknown stream
// ids (a late chunk racing a cancel) are dropped.
func (s *Sidecar) routeChunk(p *extproto.StreamChunkParams) {
	if ps := s.stream(p.StreamID); ps != nil {
		ps.onChunk(p)
	}
}

func (s *Sidecar) routeEnd(p *extproto.StreamEndParams) {
	if ps := s.stream(p.StreamID); ps != nil {
		ps.onEnd(p)
	}
}

func (s *Sidecar) stream(id string) *ProviderStream {
	s.streamsMu.Lock()
	defer s.streamsMu.Unlock()
	return s.streams[id]
}

func (s *Sidecar) dropStream(id string) {
	s.streamsMu.Lock()
	delete(s.streams, id)
	s.streamsMu.Unlock()
}

// failStreams ends every open stream when the sidecar goes away; chunks
// already delivered stay readable before the error.
func (s *Sidecar) failStreams(err error) {
	s.streamsMu.Lock()
	streams := s.streams
	s.streams = nil
	s.streamsMu.Unlock()
	for _, ps := range streams {
		ps.mu.Lock()
		ps.failLocked(err, false)
		ps.mu.Unlock()
	}
}

// Catalog asks the sidecar for its provider catalog (10 s timeout). A
// successful answer is cached for the sidecar's life; concurrent first
// callers share one call; a failure is not cached. Descriptors outside
// plugin/<id>/ are dropped.
func (s *Sidecar) Catalog(ctx context.Context) ([]extproto.ProviderDescriptor, error) {
	s.catalogMu.Lock()
	defer s.catalogMu.Unlock()
	if s.catalog != nil {
		return s.catalog, nil
	}
	ctx, cancel := context.WithTimeout(ctx, extproto.CatalogFetchTimeout)
	defer cancel()
	raw, err := s.Call(ctx, extproto.MethodProviderCatalog, extproto.ProviderCatalogParams{})
	if err != nil {
		return nil, err
	}
	v, err := extproto.DecodeResult(extproto.MethodProviderCatalog, raw)
	if err != nil {
		return nil, err
	}
	prefix := extproto.PluginProviderPrefix(s.Plugin.ID)
	out := []extproto.ProviderDescriptor{}
	for _, d := range v.(*extproto.ProviderCatalogResult).Providers {
		if len(d.Ref) > len(prefix) && d.Ref[:len(prefix)] == prefix {
			out = append(out, d)
		}
	}
	s.catalog = out
	return out, nil
}
