package extproto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// Every byte value at every offset of a word-and-a-half: PlainLen stops
// exactly at the first byte a JSON string cannot hold as it is.
func TestPlainLen(t *testing.T) {
	t.Parallel()
	special := func(c byte) bool { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80 }
	for c := range 256 {
		for at := range 20 {
			b := bytes.Repeat([]byte{'a'}, 20)
			b[at] = byte(c)
			want := 20
			if special(byte(c)) {
				want = at
			}
			if got := PlainLen(b); got != want {
				t.Fatalf("byte %#x at %d: PlainLen = %d, want %d", c, at, got, want)
			}
		}
	}
}

func TestContentReadResultAppendJSON(t *testing.T) {
	t.Parallel()
	next := int64(262144)
	for _, r := range []ContentReadResult{
		{ContentRef: "cr_0123", DataBase64: strings.Repeat("QUJD", 1000) + "QQ==", Encoding: EncodingUTF8, NextOffset: &next, Offset: 0, SHA256: strings.Repeat("ab", 32), TotalBytes: 300000},
		{ContentRef: "cr_last", DataBase64: "", Encoding: EncodingUTF8, Offset: 262144, SHA256: strings.Repeat("0", 64), TotalBytes: 262144},
		// Not what a store writes, but encoded exactly as encoding/json would.
		{ContentRef: "a\"b\\c<d>&\u2028\n\x01é\xff", DataBase64: "x\ty", Encoding: "weird\"", Offset: -1, SHA256: "", TotalBytes: 0},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		if got, err := r.AppendJSON(nil); err != nil || string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("AppendJSON:\n got %s\nwant %s", got, want.String())
		}
	}
}

// A ContentPage encodes, through AppendJSON (after a prefix) and
// MarshalJSON, exactly as its Result does through the wire's encoder.
func TestContentPageEncodesAsItsResult(t *testing.T) {
	t.Parallel()
	next := int64(3)
	for _, p := range []ContentPage{
		{ContentRef: "cr_0123", Data: []byte("abc"), Encoding: EncodingUTF8, NextOffset: &next, Offset: 0, SHA256: strings.Repeat("ab", 32), TotalBytes: 300000},
		{ContentRef: "cr_last", Encoding: EncodingUTF8, Offset: 262144, SHA256: strings.Repeat("0", 64), TotalBytes: 262144},
		{ContentRef: "cr_big", Data: bytes.Repeat([]byte{0, 0xff, '"', '\\', 'x'}, 50000), Encoding: EncodingUTF8, SHA256: strings.Repeat("1", 64), TotalBytes: 250001},
		{ContentRef: "a\"b\\c<d>&\u2028\n\x01é\xff", Data: []byte{1}, Encoding: "weird\"", Offset: -1},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(p.Result()); err != nil {
			t.Fatal(err)
		}
		wantS := strings.TrimSuffix(want.String(), "\n")
		if got, err := p.AppendJSON([]byte("prefix")); err != nil || string(got) != "prefix"+wantS {
			t.Errorf("AppendJSON:\n got %.200s\nwant prefix%.200s", got, wantS)
		}
		var viaJSON bytes.Buffer
		enc = json.NewEncoder(&viaJSON)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&p); err != nil || viaJSON.String() != want.String() {
			t.Errorf("MarshalJSON:\n got %.200s\nwant %.200s", viaJSON.String(), wantS)
		}
	}
}

// StreamOpenParams.AppendJSON writes exactly what the wire's encoder
// (encoding/json, no HTML escaping) wrote before it existed, and fails
// where encoding/json fails.
func TestStreamOpenParamsAppendJSON(t *testing.T) {
	t.Parallel()
	temp := 0.5
	nan := math.NaN()
	tools := []ProviderToolSchema{{Name: "read_file", Description: "reads <a> & \"b\"", Parameters: json.RawMessage("{\n  \"type\": \"object\" }")}}
	msgs := []ProviderMessage{
		{Role: "system", Content: "be brief\u2028</script>"},
		{Role: "user", Content: strings.Repeat("line of code\t\"quoted\"\n", 100)},
		{Role: "assistant", ToolCalls: []ProviderToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
		{Role: "tool", ToolCallID: "c1", Content: "package main\x01\xff"},
	}
	for _, tc := range []struct {
		name    string
		p       StreamOpenParams
		wantErr bool
	}{
		{"empty", StreamOpenParams{}, false},
		{"full", StreamOpenParams{Effort: "high", Model: "m\"x", ProviderRef: "plugin/p/x/m", StreamID: "es_1", SeqBase: 1,
			Request: ProviderRequest{MaxTokens: 100, Messages: msgs, Tools: tools, Temperature: &temp, ResponseFormat: &ProviderResponseFormat{Type: "json_object"}}}, false},
		{"no effort", StreamOpenParams{Model: "m", ProviderRef: "r", StreamID: "s", Request: ProviderRequest{Messages: msgs[:1]}}, false},
		{"invalid parameters", StreamOpenParams{ProviderRef: "r", Request: ProviderRequest{Tools: []ProviderToolSchema{{Name: "t", Parameters: json.RawMessage("{")}}}}, true},
		{"NaN temperature", StreamOpenParams{ProviderRef: "r", Request: ProviderRequest{Temperature: &nan}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			wantErr := enc.Encode(tc.p)
			got, err := tc.p.AppendJSON([]byte("prefix"))
			if tc.wantErr {
				if err == nil || wantErr == nil {
					t.Fatalf("AppendJSON err %v, encoding/json err %v: want both to fail", err, wantErr)
				}
				return
			}
			if err != nil || wantErr != nil {
				t.Fatalf("AppendJSON err %v, encoding/json err %v", err, wantErr)
			}
			if string(got) != "prefix"+strings.TrimSuffix(want.String(), "\n") {
				t.Errorf("AppendJSON:\n got %s\nwant prefix%s", got, want.String())
			}
		})
	}
}

// BenchmarkStreamOpenEncode is a stream/open's params with a 16-turn
// history and 10 tools, through encoding/json (the floor it replaces)
// and through AppendJSON.
func BenchmarkStreamOpenEncode(b *testing.B) {
	var msgs []ProviderMessage
	for i := range 16 {
		msgs = append(msgs, ProviderMessage{Role: "user", Content: fmt.Sprintf("question %d: %s", i, strings.Repeat("why does this code fail? ", 10))},
			ProviderMessage{Role: "assistant", Content: strings.Repeat("Because the loop\tnever ends.\n", 40)})
	}
	var tools []ProviderToolSchema
	for i := range 10 {
		tools = append(tools, ProviderToolSchema{Name: fmt.Sprintf("tool_%d", i), Description: "does a thing", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"the file"},"limit":{"type":"integer"}},"required":["path"]}`)})
	}
	p := StreamOpenParams{Model: "m", ProviderRef: "plugin/p/x/m", StreamID: "es_0123456789abcdef01234567", SeqBase: 1, Request: ProviderRequest{MaxTokens: 4096, Messages: msgs, Tools: tools}}
	b.Run("encoding-json", func(b *testing.B) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		var buf []byte
		b.ReportAllocs()
		for b.Loop() {
			var err error
			if buf, err = p.AppendJSON(buf[:0]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// MarshalPayload is json.Marshal, byte for byte, on every string: HTML
// characters, control characters, invalid UTF-8, U+2028/U+2029, and the
// empty text that omitempty drops.
func TestMarshalPayloadIsJSONMarshal(t *testing.T) {
	t.Parallel()
	var ctl strings.Builder
	for c := range 0x80 {
		ctl.WriteByte(byte(c))
	}
	for _, p := range []Payload{
		&InputReceivePayload{},
		&InputReceivePayload{Text: "hello"},
		&InputReceivePayload{Text: ctl.String()},
		&InputReceivePayload{Text: "<a href=\"x\">&amp;</a>\u2028\u2029é😀\xff\xfe\xed\xa0\x80" + "\x00"},
		&InputReceivePayload{Text: strings.Repeat("\tfmt.Println(\"hello, world\") // a line of code\n", 1000)},
		(*InputReceivePayload)(nil),
		&ToolBeforePayload{Name: "x<y", Arguments: `{"a":1}`},
	} {
		want, werr := json.Marshal(p)
		got, gerr := MarshalPayload(p)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Errorf("%T %.40q: MarshalPayload = %.80q, %v; json.Marshal = %.80q, %v", p, fmt.Sprint(p), got, gerr, want, werr)
		}
	}
}

func FuzzMarshalPayload(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\u2028", "\xff", "a\tb\n\"\\", "\x7f\x1f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := &InputReceivePayload{Text: s}
		want, _ := json.Marshal(p)
		if got, _ := MarshalPayload(p); !bytes.Equal(got, want) {
			t.Fatalf("MarshalPayload(%q) = %q, json.Marshal = %q", s, got, want)
		}
	})
}
