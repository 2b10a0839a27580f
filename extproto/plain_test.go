package extproto

import (
	"bytes"
	"encoding/json"
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
		if got := r.AppendJSON(nil); string(got) != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("AppendJSON:\n got %s\nwant %s", got, want.String())
		}
	}
}
