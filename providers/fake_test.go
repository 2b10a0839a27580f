package providers

import (
	"context"
	"io"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// fakeProvider serves scripted chunks and records the requests it got.
type fakeProvider struct {
	origin Origin
	descs  []protocol.ProviderDescriptor
	chunks []protocol.ProviderChunk
	// fail, when set, is returned by Next after the chunks.
	fail error
	got  []Request
}

func (f *fakeProvider) Origin() Origin                        { return f.origin }
func (f *fakeProvider) Models() []protocol.ProviderDescriptor { return f.descs }

func (f *fakeProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	f.got = append(f.got, req)
	return &sliceStream{ctx: ctx, chunks: f.chunks, fail: f.fail}, nil
}

type sliceStream struct {
	ctx    context.Context
	chunks []protocol.ProviderChunk
	fail   error
	closed bool
}

func (s *sliceStream) Next() (protocol.ProviderChunk, error) {
	if err := s.ctx.Err(); err != nil {
		return protocol.ProviderChunk{}, protocol.Errorf(protocol.ReasonProviderInterrupted, "cancelled: %w", err)
	}
	if len(s.chunks) == 0 {
		if s.fail != nil {
			return protocol.ProviderChunk{}, s.fail
		}
		return protocol.ProviderChunk{}, io.EOF
	}
	ch := s.chunks[0]
	s.chunks = s.chunks[1:]
	return ch, nil
}

func (s *sliceStream) Close() error { s.closed = true; return nil }

func desc(ref string) protocol.ProviderDescriptor {
	return protocol.ProviderDescriptor{Ref: ref, Model: ref[len(ref)-1:]}
}

func emptyRequest() protocol.ProviderRequest {
	return protocol.ProviderRequest{Messages: []protocol.ProviderMessage{{Role: protocol.RoleUser, Content: "hi"}}, Tools: []protocol.ProviderToolSchema{}}
}
