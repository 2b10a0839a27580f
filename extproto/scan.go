package extproto

import (
	"bytes"
	"fmt"
	"unicode/utf8"
	"unsafe"
)

// The JSON scanner under the strict decoder: it reads tokens straight out
// of the input in one pass, so a frame's params are never parsed twice.
// Strings follow encoding/json exactly (escapes, surrogate pairs, invalid
// UTF-8 and lone surrogates become U+FFFD), numbers follow the RFC 8259
// grammar, and nesting is bounded so hostile input cannot exhaust the stack.

// maxDepth bounds the nesting of objects and arrays in a document, as
// encoding/json does.
const maxDepth = 10000

// decoder is one pass over one JSON document.
type decoder struct {
	data []byte
	pos  int
	// depth counts the objects and arrays open at the cursor.
	depth int
	// buf holds the unescaped form of the last string that needed it.
	buf []byte
	// owned says data is handed over: nobody writes it again, so a big
	// string may share its memory (see keep).
	owned bool
}

// bigString is the length from which keep lets a decoded string share
// the memory it was decoded into instead of copying it: a content page's
// base64 or an externalized payload's text is megabytes, and each copy
// was a pass over all of it.
const bigString = 64 << 10

// keep returns b, just returned by str, as a string. A small one is
// copied. A big one takes over memory nobody writes again: the buffer
// strSlow unescaped it into (the decoder then forgets that buffer), when
// it wastes at most a quarter of its capacity, or, when the input is
// owned, the input it aliases.
func (d *decoder) keep(b []byte) string {
	if len(b) < bigString {
		return string(b)
	}
	p := unsafe.SliceData(b)
	switch {
	case p == unsafe.SliceData(d.buf):
		if cap(d.buf)-len(b) > len(b)/4 {
			return string(b)
		}
		d.buf = nil
		return unsafe.String(p, len(b))
	case d.owned:
		return unsafe.String(p, len(b))
	}
	return string(b)
}

// enter opens an object or array, enforcing maxDepth; the matching close
// decrements depth. A failed decode abandons the decoder, so error paths
// need not restore it.
func (d *decoder) enter() *FieldError {
	d.depth++
	if d.depth > maxDepth {
		return &FieldError{Msg: "invalid JSON: nesting exceeds the maximum depth"}
	}
	return nil
}

func (d *decoder) skipWS() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

// peek returns the byte at the cursor, or 0 at the end of input.
func (d *decoder) peek() byte {
	if d.pos < len(d.data) {
		return d.data[d.pos]
	}
	return 0
}

// syntaxError reports malformed JSON at the cursor.
func (d *decoder) syntaxError(context string) *FieldError {
	if d.pos >= len(d.data) {
		return &FieldError{Msg: "invalid JSON: unexpected end of input " + context}
	}
	return &FieldError{Msg: fmt.Sprintf("invalid JSON: unexpected %s %s at offset %d", quoteByte(d.data[d.pos]), context, d.pos)}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("character %q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// kindAt names the JSON kind of the value starting at the cursor, for
// "want X, got Y" messages.
func (d *decoder) kindAt() string {
	switch c := d.peek(); {
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == '"':
		return "string"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "number"
	case c == 0 && d.pos >= len(d.data):
		return "end of input"
	}
	return "invalid JSON"
}

// literal consumes the literal word (true, false, null) at the cursor.
func (d *decoder) literal(word string) bool {
	if len(d.data)-d.pos >= len(word) && string(d.data[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	return false
}

// str consumes the string at the cursor (which is '"') and returns its
// decoded bytes. The result aliases the input when the string has no
// escapes and is valid UTF-8, and d.buf otherwise; either way it is only
// valid until the next call.
func (d *decoder) str() ([]byte, *FieldError) {
	start := d.pos + 1
	for i := start; i < len(d.data); {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return d.data[start:i], nil
		case c == '\\':
			return d.strSlow(start, i)
		case c < 0x20:
			d.pos = i
			return nil, d.syntaxError("in string")
		case c < utf8.RuneSelf:
			i++
			i += PlainLen(d.data[i:])
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				return d.strSlow(start, i)
			}
			i += size
		}
	}
	d.pos = len(d.data)
	return nil, d.syntaxError("in string")
}

// strSlow decodes a string that needs unescaping or UTF-8 repair, starting
// at i with d.data[start:i] already known to be plain.
func (d *decoder) strSlow(start, i int) ([]byte, *FieldError) {
	// Size the buffer once: the decoded form is rarely longer than the
	// encoded one (only repaired bytes grow), so growing by appends would
	// cost an allocation per doubling.
	if n := d.encodedLen(i) + (i - start); cap(d.buf) < n {
		d.buf = make([]byte, 0, n)
	}
	b := append(d.buf[:0], d.data[start:i]...)
	for i < len(d.data) {
		c := d.data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			d.buf = b
			return b, nil
		case c == '\\':
			if i+1 >= len(d.data) {
				d.pos = len(d.data)
				return nil, d.syntaxError("in string escape")
			}
			switch e := d.data[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				i += 2
			case 'b':
				b = append(b, '\b')
				i += 2
			case 'f':
				b = append(b, '\f')
				i += 2
			case 'n':
				b = append(b, '\n')
				i += 2
			case 'r':
				b = append(b, '\r')
				i += 2
			case 't':
				b = append(b, '\t')
				i += 2
			case 'u':
				r := hex4(d.data[i:])
				if r < 0 {
					d.pos = i
					return nil, d.syntaxError("in \\u escape")
				}
				i += 6
				if utf16IsSurrogate(r) {
					// A high surrogate followed by a low one is one rune;
					// anything else is U+FFFD, and the next escape is read
					// on its own (encoding/json's behaviour).
					if r2 := hex4(d.data[i:]); r2 >= 0 {
						if dec := utf16Decode(r, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				b = utf8.AppendRune(b, r)
			default:
				d.pos = i + 1
				return nil, d.syntaxError("in string escape")
			}
		case c < 0x20:
			d.pos = i
			return nil, d.syntaxError("in string")
		case c < utf8.RuneSelf:
			n := PlainLen(d.data[i:]) // at least 1: c is plain
			b = append(b, d.data[i:i+n]...)
			i += n
		default:
			r, size := utf8.DecodeRune(d.data[i:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, d.data[i:i+size]...)
			}
			i += size
		}
	}
	d.pos = len(d.data)
	return nil, d.syntaxError("in string")
}

// encodedLen returns the number of bytes from i to the string's closing
// quote (or to the end of input).
func (d *decoder) encodedLen(i int) int {
	j := i
	for {
		k := bytes.IndexByte(d.data[j:], '"')
		if k < 0 {
			return len(d.data) - i
		}
		j += k
		// The quote is escaped when an odd number of backslashes, all
		// from i on (before i the string is plain), precede it.
		n := 0
		for p := j - 1; p >= i && d.data[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j - i
		}
		j++
	}
}

// hex4 parses `\uXXXX` at the start of s and returns the code unit, or -1.
func hex4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

func utf16IsSurrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

func utf16Decode(r1, r2 rune) rune {
	if r1 >= 0xd800 && r1 < 0xdc00 && r2 >= 0xdc00 && r2 < 0xe000 {
		return (r1-0xd800)<<10 | (r2 - 0xdc00) + 0x10000
	}
	return utf8.RuneError
}

// skipString consumes the string at the cursor without decoding it.
func (d *decoder) skipString() *FieldError {
	for i := d.pos + 1; i < len(d.data); {
		switch c := d.data[i]; {
		case c == '"':
			d.pos = i + 1
			return nil
		case c == '\\':
			if i+1 < len(d.data) {
				switch d.data[i+1] {
				case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
					i += 2
					continue
				case 'u':
					if hex4(d.data[i:]) >= 0 {
						i += 6
						continue
					}
				}
			}
			d.pos = i
			return d.syntaxError("in string escape")
		case c < 0x20:
			d.pos = i
			return d.syntaxError("in string")
		default:
			i++
		}
	}
	d.pos = len(d.data)
	return d.syntaxError("in string")
}

// number consumes the number at the cursor and returns its text and
// whether it is an integer literal (no fraction, no exponent).
func (d *decoder) number() ([]byte, bool, *FieldError) {
	start, i := d.pos, d.pos
	digits := func() bool {
		j := i
		for i < len(d.data) && d.data[i] >= '0' && d.data[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(d.data) && d.data[i] == '-' {
		i++
	}
	switch {
	case i < len(d.data) && d.data[i] == '0':
		i++
	case i < len(d.data) && d.data[i] >= '1' && d.data[i] <= '9':
		digits()
	default:
		d.pos = i
		return nil, false, d.syntaxError("in number")
	}
	isInt := true
	if i < len(d.data) && d.data[i] == '.' {
		isInt = false
		i++
		if !digits() {
			d.pos = i
			return nil, false, d.syntaxError("in number")
		}
	}
	if i < len(d.data) && (d.data[i] == 'e' || d.data[i] == 'E') {
		isInt = false
		i++
		if i < len(d.data) && (d.data[i] == '+' || d.data[i] == '-') {
			i++
		}
		if !digits() {
			d.pos = i
			return nil, false, d.syntaxError("in number")
		}
	}
	d.pos = i
	return d.data[start:i], isInt, nil
}

// skipValue consumes one JSON value of any kind, checking its syntax.
func (d *decoder) skipValue() *FieldError {
	switch c := d.peek(); {
	case c == '{':
		if err := d.enter(); err != nil {
			return err
		}
		d.pos++
		d.skipWS()
		if d.peek() == '}' {
			d.pos++
			d.depth--
			return nil
		}
		for {
			d.skipWS()
			if d.peek() != '"' {
				return d.syntaxError("looking for an object key")
			}
			if err := d.skipString(); err != nil {
				return err
			}
			d.skipWS()
			if d.peek() != ':' {
				return d.syntaxError("after object key")
			}
			d.pos++
			d.skipWS()
			if err := d.skipValue(); err != nil {
				return err
			}
			d.skipWS()
			switch d.peek() {
			case ',':
				d.pos++
			case '}':
				d.pos++
				d.depth--
				return nil
			default:
				return d.syntaxError("after object member")
			}
		}
	case c == '[':
		if err := d.enter(); err != nil {
			return err
		}
		d.pos++
		d.skipWS()
		if d.peek() == ']' {
			d.pos++
			d.depth--
			return nil
		}
		for {
			d.skipWS()
			if err := d.skipValue(); err != nil {
				return err
			}
			d.skipWS()
			switch d.peek() {
			case ',':
				d.pos++
			case ']':
				d.pos++
				d.depth--
				return nil
			default:
				return d.syntaxError("after array element")
			}
		}
	case c == '"':
		return d.skipString()
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, err := d.number()
		return err
	case c == 't':
		if d.literal("true") {
			return nil
		}
	case c == 'f':
		if d.literal("false") {
			return nil
		}
	case c == 'n':
		if d.literal("null") {
			return nil
		}
	}
	return d.syntaxError("looking for a value")
}
