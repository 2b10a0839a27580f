package exthost

import (
	"context"
	"io"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// FuzzStreamReorder feeds the host's reorder buffer an arbitrary sequence
// of chunk seqs and one optional end, as a misbehaving sidecar could, and
// checks what the consumer sees: seqs strictly 1, 2, 3, ... with no
// duplicate and no gap, and, on a clean end, exactly lastSeq chunks.
func FuzzStreamReorder(f *testing.F) {
	f.Add([]byte{1, 2, 3}, uint8(3), true)
	f.Add([]byte{3, 1, 2, 2, 1}, uint8(3), true)
	f.Add([]byte{1, 3}, uint8(3), true)
	f.Add([]byte{2}, uint8(0), false)
	f.Add([]byte{200, 1}, uint8(1), true)
	f.Fuzz(func(t *testing.T, seqs []byte, lastSeq uint8, end bool) {
		s := &Sidecar{Plugin: &Plugin{ID: "fuzz"}}
		ps := newProviderStream(s, "es_x", "plugin/fuzz/p/m", context.Background())
		for _, b := range seqs {
			seq := int64(b)
			if seq == 0 {
				continue // seq 0 never passes the strict decoder
			}
			ps.onChunk(&extproto.StreamChunkParams{StreamID: "es_x", Seq: seq, Chunk: extproto.ProviderChunk{Type: extproto.ChunkText, Text: string(rune('a' + seq%26))}})
		}
		if end {
			ps.onEnd(&extproto.StreamEndParams{StreamID: "es_x", LastSeq: int64(lastSeq)})
		}
		ps.mu.Lock()
		if ps.gap != nil {
			ps.gap.Stop() // the gap timer's verdict is not part of this check
		}
		delivered, final := ps.next-1, ps.err
		ps.mu.Unlock()
		// Adjacent text deltas merge: one letter per seq, in order.
		want := int64(1)
		for want <= delivered {
			c, err := ps.Next()
			if err != nil {
				t.Fatalf("queued chunk missing: %v", err)
			}
			for _, r := range c.Text {
				if r != rune('a'+want%26) {
					t.Fatalf("chunk %q out of order, want seq %d", c.Text, want)
				}
				want++
			}
		}
		if final == io.EOF && want-1 != int64(lastSeq) {
			t.Fatalf("clean end after %d chunks, lastSeq %d", want-1, lastSeq)
		}
	})
}
