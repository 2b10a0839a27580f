package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// TestDrainEndings gives every ending of a stream its one meaning,
// including those a real plugin cannot be made to produce on purpose (a
// gap, a crash whose error wraps the pipe's io.EOF).
func TestDrainEndings(t *testing.T) {
	t.Parallel()
	text := func(s string) extproto.ProviderChunk {
		return extproto.ProviderChunk{Type: extproto.ChunkText, Text: s}
	}
	done := extproto.ProviderChunk{Type: extproto.ChunkDone}
	errChunk := extproto.ProviderChunk{Type: extproto.ChunkError, Error: &extproto.ProviderError{Code: extproto.ProviderCodeFailed, Message: "boom"}}
	crash := extproto.Errorf(extproto.ReasonProviderInterrupted, "extension sidecar p crashed: %w", io.EOF)
	gap := extproto.NewError(extproto.ReasonStreamGap, "extension p provider \"r\" stream missing chunk 2 of 3")
	for _, tc := range []struct {
		name   string
		chunks []extproto.ProviderChunk
		fail   error
		cancel bool
		reason extproto.Reason // "" for success
		is     error
		shown  int // chunks handed to each
	}{
		{name: "done", chunks: []extproto.ProviderChunk{text("a"), done}, shown: 2},
		{name: "end without done", chunks: []extproto.ProviderChunk{text("a")}, reason: extproto.ReasonProviderInterrupted, is: ErrNoDone, shown: 1},
		{name: "error chunk", chunks: []extproto.ProviderChunk{text("a"), errChunk}, reason: extproto.ReasonProviderFailed, shown: 1},
		{name: "crash", chunks: []extproto.ProviderChunk{text("a")}, fail: crash, reason: extproto.ReasonProviderInterrupted, is: crash, shown: 1},
		{name: "gap", chunks: []extproto.ProviderChunk{text("a")}, fail: gap, reason: extproto.ReasonStreamGap, is: gap, shown: 1},
		{name: "cancel", chunks: []extproto.ProviderChunk{text("a"), done}, cancel: true, is: context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			st := &sliceStream{ctx: ctx, chunks: tc.chunks, fail: tc.fail}
			shown := 0
			resp, err := Drain(ctx, st, func(extproto.ProviderChunk) error { shown++; return nil })
			if !st.closed {
				t.Error("the stream was not closed")
			}
			if shown != tc.shown {
				t.Errorf("%d chunks handed on, want %d", shown, tc.shown)
			}
			switch {
			case tc.reason == "" && tc.is == nil:
				if err != nil || !resp.Done || resp.Text != "a" {
					t.Errorf("Drain = %+v, %v; want success", resp, err)
				}
			case tc.is != nil && !errors.Is(err, tc.is):
				t.Errorf("Drain error %v, want %v", err, tc.is)
			case tc.reason != "" && extproto.ReasonOf(err) != tc.reason:
				t.Errorf("Drain error %v has reason %q, want %q", err, extproto.ReasonOf(err), tc.reason)
			}
		})
	}
	t.Run("consumer error", func(t *testing.T) {
		t.Parallel()
		want := fmt.Errorf("terminal gone")
		st := &sliceStream{ctx: context.Background(), chunks: []extproto.ProviderChunk{text("a"), done}}
		if _, err := Drain(context.Background(), st, func(extproto.ProviderChunk) error { return want }); err != want || !st.closed {
			t.Errorf("Drain = %v (closed %v), want the consumer's error", err, st.closed)
		}
	})
}
