package wire

import (
	"bytes"
	"testing"
)

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
			if got := plainLen(b); got != want {
				t.Fatalf("byte %#x at %d: plainLen = %d, want %d", c, at, got, want)
			}
		}
	}
}
