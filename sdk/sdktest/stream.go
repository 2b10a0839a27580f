package sdktest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Stream records one provider stream as the host receives it.
type Stream struct {
	h  *Host
	ID string

	mu     sync.Mutex
	chunks []extproto.StreamChunkParams
	end    *extproto.StreamEndParams
	faults []string
	ended  chan struct{}
}

// OpenStream opens a stream of ref (seqBase 1, as the reference host
// does). The recorder is registered before the open goes out, so no chunk
// can be missed.
func (h *Host) OpenStream(ref string, req extproto.ProviderRequest) (*Stream, error) {
	return h.OpenStreamWith(extproto.StreamOpenParams{ProviderRef: ref, Request: req, SeqBase: 1})
}

// OpenStreamWith opens a stream with params as given; an empty StreamID
// gets a fresh one.
func (h *Host) OpenStreamWith(p extproto.StreamOpenParams) (*Stream, error) {
	if p.StreamID == "" {
		p.StreamID = fmt.Sprintf("es_%024x", h.seq.Add(1))
	}
	st := &Stream{h: h, ID: p.StreamID, ended: make(chan struct{})}
	h.mu.Lock()
	h.streams[p.StreamID] = st
	h.mu.Unlock()
	res, err := Call[extproto.StreamOpenResult](h, extproto.MethodStreamOpen, p)
	if err != nil {
		return nil, err
	}
	if !res.Accepted {
		return nil, fmt.Errorf("sdktest: stream %s declined", p.StreamID)
	}
	return st, nil
}

// Cancel sends stream/cancel.
func (st *Stream) Cancel() (*extproto.StreamCancelResult, error) {
	return Call[extproto.StreamCancelResult](st.h, extproto.MethodStreamCancel, extproto.StreamCancelParams{StreamID: st.ID})
}

// Wait waits for the stream's end and returns its chunks and end.
func (st *Stream) Wait() ([]extproto.StreamChunkParams, extproto.StreamEndParams, error) {
	select {
	case <-st.ended:
	case <-time.After(Deadline):
		return nil, extproto.StreamEndParams{}, fmt.Errorf("sdktest: stream %s did not end", st.ID)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.faults) > 0 {
		return st.chunks, *st.end, fmt.Errorf("sdktest: stream %s: %s", st.ID, strings.Join(st.faults, "; "))
	}
	return st.chunks, *st.end, nil
}

// Chunks returns the chunks received so far.
func (st *Stream) Chunks() []extproto.StreamChunkParams {
	st.mu.Lock()
	defer st.mu.Unlock()
	return append([]extproto.StreamChunkParams(nil), st.chunks...)
}

// Text concatenates the text chunks received so far.
func (st *Stream) Text() string {
	var b strings.Builder
	for _, c := range st.Chunks() {
		if c.Chunk.Type == extproto.ChunkText {
			b.WriteString(c.Chunk.Text)
		}
	}
	return b.String()
}

// notified receives the plugin's stream notifications and checks what a
// host checks: known stream, contiguous seq, nothing after the end, one
// end whose lastSeq is the last chunk.
func (h *Host) notified(_ context.Context, method string, raw json.RawMessage) {
	params, err := extproto.DecodeParams(method, raw)
	if err != nil {
		h.t.Errorf("sdktest: undecodable %s notification: %v", method, err)
		return
	}
	switch p := params.(type) {
	case *extproto.StreamChunkParams:
		h.stream(p.StreamID, method).chunk(p)
	case *extproto.StreamEndParams:
		h.stream(p.StreamID, method).finish(p)
	default:
		h.t.Errorf("sdktest: unexpected notification %s", method)
	}
}

func (h *Host) stream(id, method string) *Stream {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := h.streams[id]
	if st == nil {
		h.t.Errorf("sdktest: %s for unknown stream %q", method, id)
		st = &Stream{h: h, ID: id, ended: make(chan struct{})}
		h.streams[id] = st
	}
	return st
}

func (st *Stream) chunk(p *extproto.StreamChunkParams) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.end != nil {
		st.faults = append(st.faults, fmt.Sprintf("chunk %d after the end", p.Seq))
	}
	if n := len(st.chunks); n > 0 && p.Seq != st.chunks[n-1].Seq+1 {
		st.faults = append(st.faults, fmt.Sprintf("chunk %d follows chunk %d", p.Seq, st.chunks[n-1].Seq))
	}
	st.chunks = append(st.chunks, *p)
}

func (st *Stream) finish(p *extproto.StreamEndParams) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.end != nil {
		st.faults = append(st.faults, "a second end")
		return
	}
	var last int64
	if n := len(st.chunks); n > 0 {
		last = st.chunks[n-1].Seq
	}
	if p.LastSeq != last {
		st.faults = append(st.faults, fmt.Sprintf("end says lastSeq %d, the last chunk was %d", p.LastSeq, last))
	}
	st.end = p
	close(st.ended)
}
