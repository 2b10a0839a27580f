package extproto

import (
	"bytes"
	"encoding/json"
	"slices"
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
		// Code escapes a byte in about every ten; more grows once. The
		// string encoder makes room a block ahead.
		b := make([]byte, 0, len(`{"text":""}`)+len(in.Text)+len(in.Text)/8+6*stringBlock)
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

// stringBlock is how many bytes appendHTMLString makes room for at once:
// six times as many (a byte becomes at most six).
const stringBlock = 4 << 10

// appendHTMLString appends s quoted as encoding/json does with HTML
// escaping on. Bytes are stored one by one into room made a block at a
// time: on code, whose plain runs are about ten bytes long, an append
// (a memmove call) per run was most of the time.
func appendHTMLString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		end := min(i+stringBlock, len(s))
		dst = slices.Grow(dst, 6*(end-i))
		w, out := len(dst), dst[:cap(dst)]
		// Every byte or rune starting before end writes at most six.
		for i < end {
			c := s[i]
			if c < utf8.RuneSelf {
				i++
				if htmlSafe[c] {
					out[w] = c
					w++
					continue
				}
				switch c {
				case '\\', '"':
					out[w], out[w+1] = '\\', c
				case '\b':
					out[w], out[w+1] = '\\', 'b'
				case '\f':
					out[w], out[w+1] = '\\', 'f'
				case '\n':
					out[w], out[w+1] = '\\', 'n'
				case '\r':
					out[w], out[w+1] = '\\', 'r'
				case '\t':
					out[w], out[w+1] = '\\', 't'
				default:
					w += copy(out[w:], `\u00`)
					out[w], out[w+1] = hex[c>>4], hex[c&0xF]
				}
				w += 2
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				w += copy(out[w:], `\ufffd`)
			case r == '\u2028' || r == '\u2029':
				w += copy(out[w:], `\u202`)
				out[w] = hex[r&0xF]
				w++
			default:
				w += copy(out[w:], s[i:i+size])
			}
			i += size
		}
		dst = out[:w]
	}
	return append(dst, '"')
}
