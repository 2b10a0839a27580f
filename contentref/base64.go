package contentref

import (
	"encoding/base64"
	"unsafe"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// encodeBase64 is base64.StdEncoding.EncodeToString without the second
// copy: the buffer is never written again once it is a string.
func encodeBase64(src []byte) string {
	if len(src) == 0 {
		return ""
	}
	buf := make([]byte, base64.StdEncoding.EncodedLen(len(src)))
	base64.StdEncoding.Encode(buf, src)
	return unsafe.String(unsafe.SliceData(buf), len(buf))
}

// unsafeBytes views s as bytes for the base64 decoder, which only reads
// its source: a page is 350 KB of text.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// strictBase64 rejects non-canonical padding bits; line breaks, which the
// decoder skips, are caught by the exact length check in decodePage.
var strictBase64 = base64.StdEncoding.Strict()

// maxPageBase64 is the base64 length of a full page.
var maxPageBase64 = base64.StdEncoding.EncodedLen(extproto.ContentRefChunkBytes)

// decodedLen is the exact decoded length of padded base64 s (whose length
// is a multiple of 4).
func decodedLen(s string) int64 {
	n := int64(len(s)) / 4 * 3
	for i := len(s) - 1; i >= 0 && i >= len(s)-2 && s[i] == '='; i-- {
		n--
	}
	return n
}
