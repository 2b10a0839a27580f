package extproto

import (
	"encoding/json"
	"strings"
	"testing"
)

// Decoding cost per frame. Each strict decode is measured beside plain
// encoding/json.Unmarshal of the same bytes into the same type (lenient:
// case-insensitive, no required or enum checks), the baseline it must
// stay near.

var (
	benchInterceptParams = []byte(`{"event":"tool.before","seq":42,"payload":{"name":"read_file","arguments":"{\"path\":\"src/main.go\"}"},"timeoutMillis":5000}`)
	benchInterceptResult = []byte(`{"decision":"replace","replacement":{"name":"read_file","arguments":"{\"path\":\"src/other.go\"}"}}`)
	benchStreamChunk     = []byte(`{"streamId":"es_3f9c0a1b2c3d4e5f60718293","seq":17,"chunk":{"type":"text","text":"fake-hello "}}`)
	benchToolPayload     = []byte(`{"name":"read_file","arguments":"{\"path\":\"src/other.go\"}"}`)
)

func BenchmarkDecode(b *testing.B) {
	cases := []struct {
		name   string
		raw    []byte
		strict func([]byte) error
		plain  func([]byte) error
	}{
		{"InterceptParams", benchInterceptParams,
			func(r []byte) error { _, err := DecodeParams(MethodIntercept, r); return err },
			func(r []byte) error { return json.Unmarshal(r, new(InterceptParams)) }},
		{"InterceptResult", benchInterceptResult,
			func(r []byte) error { _, err := DecodeResult(MethodIntercept, r); return err },
			func(r []byte) error { return json.Unmarshal(r, new(InterceptResult)) }},
		{"StreamChunkParams", benchStreamChunk,
			func(r []byte) error { _, err := DecodeParams(MethodStreamChunk, r); return err },
			func(r []byte) error { return json.Unmarshal(r, new(StreamChunkParams)) }},
		{"ToolBeforePayload", benchToolPayload,
			func(r []byte) error { _, err := DecodePayload(ToolBefore, r); return err },
			func(r []byte) error { return json.Unmarshal(r, new(ToolBeforePayload)) }},
	}
	for _, c := range cases {
		for _, variant := range []struct {
			name string
			fn   func([]byte) error
		}{{"strict", c.strict}, {"encoding-json", c.plain}} {
			b.Run(c.name+"/"+variant.name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(c.raw)))
				for b.Loop() {
					if err := variant.fn(c.raw); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// The allocation budget of the hot decodes: the DTO itself plus one per
// string or raw member that has to outlive the frame (enum values cost
// none), plus one reusable unescape buffer when a string has escapes.
func TestDecodeAllocations(t *testing.T) {
	for _, c := range []struct {
		name string
		max  float64
		fn   func()
	}{
		{"InterceptParams", 2, func() { _, _ = DecodeParams(MethodIntercept, benchInterceptParams) }},
		{"InterceptResult", 2, func() { _, _ = DecodeResult(MethodIntercept, benchInterceptResult) }},
		{"StreamChunkParams", 3, func() { _, _ = DecodeParams(MethodStreamChunk, benchStreamChunk) }},
		{"ToolBeforePayload", 4, func() { _, _ = DecodePayload(ToolBefore, benchToolPayload) }},
	} {
		if got := testing.AllocsPerRun(200, c.fn); got > c.max {
			t.Errorf("%s: %.1f allocations per decode, budget %.0f", c.name, got, c.max)
		}
	}
}

// An 8 MiB input.receive of code (BenchmarkContentRatio's text) encoded
// by MarshalPayload and by encoding/json.
func BenchmarkMarshalPayload8MiB(b *testing.B) {
	line := "\tfmt.Println(\"hello, world\") // a line of code\n"
	p := &InputReceivePayload{Text: strings.Repeat(line, (8<<20-64)/(len(line)+4))}
	for _, tc := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{
		{"MarshalPayload", func(v any) ([]byte, error) { return MarshalPayload(v.(Payload)) }},
		{"encoding-json", json.Marshal},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(p.Text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tc.marshal(p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodePayload8MiB strictly decodes BenchmarkMarshalPayload8MiB's
// JSON: what an SDK sidecar does with an externalized input.receive once
// its bytes are fetched.
func BenchmarkDecodePayload8MiB(b *testing.B) {
	line := "\tfmt.Println(\"hello, world\") // a line of code\n"
	raw, err := MarshalPayload(&InputReceivePayload{Text: strings.Repeat(line, (8<<20-64)/(len(line)+4))})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePayload(InputReceive, raw); err != nil {
			b.Fatal(err)
		}
	}
}
