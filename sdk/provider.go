package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Provider is one model a plugin streams (SPEC §6).
type Provider struct {
	// Descriptor is listed in the handshake and the catalog. A Ref
	// without the "plugin/" prefix, such as "echo/small", is completed
	// to plugin/<installed id>/echo/small. It must never carry
	// credentials, endpoints or headers.
	Descriptor extproto.ProviderDescriptor
	// Accept, if set, vets an open before it is acknowledged; an error
	// declines the stream (answered provider_failed).
	Accept func(ctx context.Context, open *extproto.StreamOpenParams) error
	// Stream produces the stream through out, on a goroutine of its own
	// that starts once the open is accepted. ctx ends on stream/cancel
	// and when the connection ends; out then refuses further chunks.
	// Returning nil ends the stream cleanly, an error ends it with the
	// error's text (keep secrets out of it), and a panic ends it as
	// failed without taking the sidecar down.
	Stream func(ctx context.Context, open *extproto.StreamOpenParams, out *Stream) error
}

// streamOpen answers extension/provider/stream/open.
func (s *server) streamOpen(ctx context.Context, raw json.RawMessage) (any, error) {
	if len(s.providers) == 0 {
		return nil, unknownMethod(extproto.MethodStreamOpen)
	}
	open, err := decode[extproto.StreamOpenParams](extproto.MethodStreamOpen, raw)
	if err != nil {
		return nil, err
	}
	prov := s.providers[open.ProviderRef]
	if prov == nil {
		return nil, extproto.Errorf(extproto.ReasonProviderFailed, "this extension does not serve provider %q", clip(open.ProviderRef))
	}
	if prov.Accept != nil {
		if err := prov.Accept(ctx, open); err != nil {
			return nil, extproto.Errorf(extproto.ReasonProviderFailed, "provider %s declined the stream: %w", open.ProviderRef, err)
		}
	}
	st, err := s.addStream(ctx, open)
	if err != nil {
		return nil, err
	}
	go st.run(prov)
	// The producer starts now, but its chunks wait until the answer is
	// being queued, so the host sees the ack before chunk 1.
	return afterAnswer{extproto.StreamOpenResult{Accepted: true}, st.release}, nil
}

func (s *server) addStream(ctx context.Context, open *extproto.StreamOpenParams) (*Stream, error) {
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	switch {
	case s.closing:
		return nil, extproto.NewError(extproto.ReasonProviderInterrupted, "the extension is shutting down")
	case s.streams[open.StreamID] != nil:
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "stream %q is already open", clip(open.StreamID))
	case len(s.streams) >= maxStreams:
		return nil, extproto.Errorf(extproto.ReasonProviderFailed, "too many open streams (limit %d)", maxStreams)
	}
	st := newStream(ctx, s, open)
	s.streams[open.StreamID] = st
	s.streamsWG.Add(1)
	return st, nil
}

func (s *server) forgetStream(st *Stream) {
	s.streamMu.Lock()
	if s.streams[st.open.StreamID] == st {
		delete(s.streams, st.open.StreamID)
	}
	s.streamMu.Unlock()
}

// streamCancel answers extension/provider/stream/cancel: a live stream's
// producer is cancelled and the stream ends interrupted at once; an
// unknown (or already ended) stream is cancelled:false.
func (s *server) streamCancel(raw json.RawMessage) (any, error) {
	if len(s.providers) == 0 {
		return nil, unknownMethod(extproto.MethodStreamCancel)
	}
	p, err := decode[extproto.StreamCancelParams](extproto.MethodStreamCancel, raw)
	if err != nil {
		return nil, err
	}
	s.streamMu.Lock()
	st := s.streams[p.StreamID]
	s.streamMu.Unlock()
	if st == nil {
		return extproto.StreamCancelResult{Cancelled: false}, nil
	}
	return extproto.StreamCancelResult{Cancelled: st.interrupt()}, nil
}

// afterAnswer is a handler result that runs then while wire encodes it,
// right before wire queues the answer frame: the last moment the SDK
// gets control before the answer exists. then marks the writer's position
// (see watchWriter) so the SDK can act once the answer is out.
type afterAnswer struct {
	v    any
	then func()
}

// MarshalJSON implements json.Marshaler.
func (a afterAnswer) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(a.v)
	a.then()
	return b, err
}
