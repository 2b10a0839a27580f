package providers

import (
	"strconv"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// BenchmarkAssembler measures chunk folding alone, the assembly half of the
// reorder + assembly path a plugin stream takes (target: >= 100k chunks/s).
func BenchmarkAssembler(b *testing.B) {
	chunks := make([]extproto.ProviderChunk, 0, 1024)
	for i := range 1000 {
		chunks = append(chunks, extproto.ProviderChunk{Type: extproto.ChunkText, Text: "token "})
		if i%100 == 0 {
			id := "call_" + strconv.Itoa(i)
			chunks = append(chunks, extproto.ProviderChunk{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: id, Name: "f", Arguments: "{}"}})
		}
	}
	chunks = append(chunks, extproto.ProviderChunk{Type: extproto.ChunkDone})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var a Assembler
		for _, ch := range chunks {
			if err := a.Add(ch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(chunks))/b.Elapsed().Seconds(), "chunks/s")
}
