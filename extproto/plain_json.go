package extproto

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
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

// MarshalPayload is json.Marshal(p), byte for byte (HTML characters
// escaped). An input.receive text, the payload most often megabytes
// long, is written without reflection into one buffer sized up front:
// through encoding/json its string was appended into a buffer grown by
// doubling, copied into the encoder's buffer and copied out again, about
// four times its size in allocations and three passes over it.
func MarshalPayload(p Payload) ([]byte, error) {
	if in, ok := p.(*InputReceivePayload); ok && in != nil {
		if in.Text == "" {
			return []byte("{}"), nil
		}
		// Code escapes a byte in about every ten; more grows once.
		b := make([]byte, 0, len(`{"text":""}`)+len(in.Text)+len(in.Text)/8)
		b = append(b, `{"text":`...)
		b = appendHTMLString(b, in.Text)
		return append(b, '}'), nil
	}
	return json.Marshal(p)
}

// htmlSafe holds the ASCII bytes encoding/json writes as they are with
// HTML escaping on: from 0x20, not '"', '\\', '<', '>' or '&'.
var htmlSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// appendHTMLString appends s quoted as encoding/json does with HTML
// escaping on: its loop, on a string.
func appendHTMLString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if htmlSafe[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
