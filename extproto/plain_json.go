package extproto

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unsafe"
)

func strconvAppendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// appendJSONString appends s quoted as encoding/json does with HTML
// escaping off; plain strings are copied as they are.
func appendJSONString(b []byte, s string) []byte {
	if PlainLen(unsafe.Slice(unsafe.StringData(s), len(s))) == len(s) {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
}
