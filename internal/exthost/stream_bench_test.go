package exthost

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/benchratio"
)

// benchChunks fits the 256-chunk delivery queue: a producer that runs more
// than that ahead of its consumer fails the stream by design (§6.6).
const benchChunks = 256

// benchChunkSeqs returns the seqs 1..n in arrival order: in order, or
// shuffled within windows of 8 as a reordering transport would deliver.
func benchChunkSeqs(n int, shuffled bool) []int64 {
	seqs := make([]int64, n)
	for i := range seqs {
		seqs[i] = int64(i + 1)
	}
	if shuffled {
		r := rand.New(rand.NewPCG(1, 2))
		for w := 0; w < n; w += 8 {
			win := seqs[w:min(w+8, n)]
			r.Shuffle(len(win), func(i, j int) { win[i], win[j] = win[j], win[i] })
		}
	}
	return seqs
}

// benchParams are the chunk notifications of one stream, in arrival order.
func benchParams(shuffled bool) []extproto.StreamChunkParams {
	seqs := benchChunkSeqs(benchChunks, shuffled)
	params := make([]extproto.StreamChunkParams, len(seqs))
	for i, seq := range seqs {
		params[i] = extproto.StreamChunkParams{StreamID: "es_b", Seq: seq, Chunk: extproto.ProviderChunk{Type: extproto.ChunkText, Text: "word "}}
	}
	return params
}

// reorderOnce is one stream through the host's reorder buffer: a producer
// goroutine feeding params, the consumer concatenating the text.
func reorderOnce(b *testing.B, s *Sidecar, params []extproto.StreamChunkParams) {
	ps := newProviderStream(s, "es_b", "r", context.Background())
	go func() {
		for j := range params {
			ps.onChunk(&params[j])
		}
		ps.onEnd(&extproto.StreamEndParams{StreamID: "es_b", LastSeq: benchChunks})
	}()
	var text strings.Builder
	for {
		c, err := ps.Next()
		if err != nil {
			break
		}
		text.WriteString(c.Text)
	}
	if text.Len() != benchChunks*5 {
		b.Fatalf("assembled %d bytes", text.Len())
	}
}

// relayOnce is the floor: the same chunks over a bare buffered channel
// between the same two goroutines, concatenated.
func relayOnce(b *testing.B, params []extproto.StreamChunkParams) {
	ch := make(chan extproto.ProviderChunk, 256)
	go func() {
		for j := range params {
			ch <- params[j].Chunk
		}
		close(ch)
	}()
	var text strings.Builder
	for c := range ch {
		text.WriteString(c.Text)
	}
	if text.Len() != benchChunks*5 {
		b.Fatalf("assembled %d bytes", text.Len())
	}
}

// BenchmarkStreamReorder pushes chunks through the host's reorder buffer
// and a minimal assembly (the text concatenated), with the producer and
// the consumer on two goroutines as in the bridge; reported per chunk.
func BenchmarkStreamReorder(b *testing.B) {
	for _, shuffled := range []bool{false, true} {
		name := "in-order"
		if shuffled {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			params := benchParams(shuffled)
			s := &Sidecar{Plugin: &Plugin{ID: "bench"}}
			b.ReportAllocs()
			for b.Loop() {
				reorderOnce(b, s, params)
			}
			b.ReportMetric(float64(b.N*benchChunks)/b.Elapsed().Seconds(), "chunks/s")
		})
	}
}

// BenchmarkChannelRelay is the baseline: the same chunks relayed over a
// bare buffered channel between the same two goroutines, concatenated.
func BenchmarkChannelRelay(b *testing.B) {
	params := benchParams(false)
	b.ReportAllocs()
	for b.Loop() {
		relayOnce(b, params)
	}
	b.ReportMetric(float64(b.N*benchChunks)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkStreamRatio interleaves, stream by stream in one loop, the
// channel relay (the floor) and the reorder buffer with chunks in order,
// 256 chunks per call (internal/benchratio): the goal is ≤ 1.3× the relay.
func BenchmarkStreamRatio(b *testing.B) {
	params := benchParams(false)
	s := &Sidecar{Plugin: &Plugin{ID: "bench"}}
	benchratio.Interleave(b, 16,
		benchratio.Side{Call: func() { relayOnce(b, params) }},
		benchratio.Side{Call: func() { reorderOnce(b, s, params) }})
}
