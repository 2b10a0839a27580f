package providers

import (
	"context"
	"io"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// fakeProvider serves scripted chunks and records the requests it got.
type fakeProvider struct {
	origin Origin
	descs  []extproto.ProviderDescriptor
	chunks []extproto.ProviderChunk
	// fail, when set, is returned by Next after the chunks.
	fail error
	got  []Request
}

func (f *fakeProvider) Origin() Origin                        { return f.origin }
func (f *fakeProvider) Models() []extproto.ProviderDescriptor { return f.descs }

func (f *fakeProvider) Stream(ctx context.Context, req Request) (Stream, error) {
	f.got = append(f.got, req)
	return &sliceStream{ctx: ctx, chunks: f.chunks, fail: f.fail}, nil
}

type sliceStream struct {
	ctx    context.Context
	chunks []extproto.ProviderChunk
	fail   error
	closed bool
}

func (s *sliceStream) Next() (extproto.ProviderChunk, error) {
	if err := s.ctx.Err(); err != nil {
		return extproto.ProviderChunk{}, extproto.Errorf(extproto.ReasonProviderInterrupted, "cancelled: %w", err)
	}
	if len(s.chunks) == 0 {
		if s.fail != nil {
			return extproto.ProviderChunk{}, s.fail
		}
		return extproto.ProviderChunk{}, io.EOF
	}
	ch := s.chunks[0]
	s.chunks = s.chunks[1:]
	return ch, nil
}

func (s *sliceStream) Close() error { s.closed = true; return nil }

func desc(ref string) extproto.ProviderDescriptor {
	return extproto.ProviderDescriptor{Ref: ref, Model: ref[len(ref)-1:]}
}

func emptyRequest() extproto.ProviderRequest {
	return extproto.ProviderRequest{Messages: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: "hi"}}, Tools: []extproto.ProviderToolSchema{}}
}
