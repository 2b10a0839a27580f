package openai

import "testing"

// BenchmarkDecode measures SSE parsing plus chunk translation of a typical
// streamed answer, without the network.
func BenchmarkDecode(b *testing.B) {
	events := make([]string, 0, 1001)
	for range 1000 {
		events = append(events, `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"token "},"finish_reason":null}]}`)
	}
	events = append(events, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	body := sse(events...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	for b.Loop() {
		chunks, f := decodeAll(body)
		if f != nil {
			b.Fatal(f)
		}
		n += len(chunks)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}
