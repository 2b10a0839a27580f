package redact

import (
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// JSON is [Redactor.JSON] with the default Redactor.
func JSON(b []byte) []byte { return defaultRedactor().JSON(b) }

// JSON redacts a JSON document structurally: every string (member names
// included) is redacted as text, decoded, and written back as a JSON
// string; the string and number values of a member whose name names a
// secret (apiKey, password, token, authorization, ...; see the key/value
// rule), and of an array that is such a member's value, become
// "[redacted]" whatever they hold. Numbers, booleans, null and the
// structure stay, so the result is valid JSON whenever b is, and
// "maxTokens":4096 survives. When b is not valid JSON it is redacted as
// text with [Redactor.Bytes]. Like Bytes, it returns b itself when nothing
// is masked and never modifies b.
func (r *Redactor) JSON(b []byte) []byte {
	if !maybeJSON(b) || !json.Valid(b) {
		return r.Bytes(b)
	}
	w := jsonWalker{r: r, src: b}
	w.walk()
	if w.out == nil {
		return b
	}
	w.out = append(w.out, b[w.last:]...)
	return w.out
}

// maybeJSON reports whether b can be JSON by its first byte, so plain text
// skips json.Valid (whose error allocates).
func maybeJSON(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{', '[', '"', '-', 't', 'f', 'n':
			return true
		}
		return '0' <= c && c <= '9'
	}
	return false
}

// jsonWalker rewrites a valid JSON document. It relies on the validity
// json.Valid established: it only tracks where strings, numbers and
// literals are, and whether a string is a member name.
type jsonWalker struct {
	r    *Redactor
	src  []byte
	out  []byte // nil until the first change
	last int    // src[:last] is accounted for in out
	buf  []byte // decoded escaped strings; a frame without escapes allocates nothing
}

// A frame is an open container: an object, or an array and whether its
// values are secret.
type frame struct {
	object, secret bool
}

func (w *jsonWalker) walk() {
	src := w.src
	var stackBuf [32]frame
	stack := stackBuf[:0]
	expectKey := false // the next string in an object is a member name
	secretValue := false
	for i := 0; i < len(src); {
		switch c := src[i]; c {
		case '{', '[':
			f := frame{object: c == '{', secret: c == '[' && secretValue}
			stack = append(stack, f)
			expectKey, secretValue = f.object, f.secret
			i++
		case '}', ']':
			stack = stack[:len(stack)-1]
			expectKey, secretValue = false, false
			i++
		case ',':
			if n := len(stack); n > 0 {
				top := stack[n-1]
				expectKey, secretValue = top.object, !top.object && top.secret
			}
			i++
		case ':':
			i++
		case '"':
			end, escaped := stringEnd(src, i)
			if expectKey {
				name := w.text(i, end, escaped)
				secretValue = keyKind(name) != keyPlain
				w.redactString(i, end, name)
				expectKey = false
			} else {
				if secretValue && end-i > 2 {
					if v := w.text(i, end, escaped); v != Redacted && v != Masked {
						w.replace(i, end, `"`+Redacted+`"`)
					}
				} else {
					w.redactString(i, end, w.text(i, end, escaped))
				}
				secretValue = inSecretArray(stack)
			}
			i = end
		case ' ', '\t', '\n', '\r':
			i++
		default: // a number, true, false or null
			end := i
			for end < len(src) && !isJSONDelim(src[end]) {
				end++
			}
			if secretValue && (c == '-' || '0' <= c && c <= '9') {
				w.replace(i, end, `"`+Redacted+`"`)
			}
			secretValue = inSecretArray(stack)
			i = end
		}
	}
}

// inSecretArray reports whether the innermost container is an array whose
// values are secret.
func inSecretArray(stack []frame) bool {
	n := len(stack)
	return n > 0 && !stack[n-1].object && stack[n-1].secret
}

func isJSONDelim(b byte) bool {
	return b == ',' || b == '}' || b == ']' || b == ' ' || b == '\t' || b == '\n' || b == '\r'
}

// stringEnd returns the end (after the closing quote) of the string that
// starts at src[i], and whether it holds an escape.
func stringEnd(src []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return len(src), escaped
}

// text returns the decoded value of the string src[i:end]. It is not a
// copy (of the source, or of a buffer the next call reuses): it must not
// be kept.
func (w *jsonWalker) text(i, end int, escaped bool) string {
	raw := w.src[i+1 : end-1]
	if escaped {
		w.buf = appendUnquoted(w.buf[:0], raw)
		raw = w.buf
	}
	return unsafe.String(unsafe.SliceData(raw), len(raw))
}

// appendUnquoted appends the value of the valid JSON string body raw
// (between its quotes), as encoding/json decodes it: a lone surrogate
// becomes U+FFFD. Invalid UTF-8 is copied as is (appendJSONString
// replaces it, as the decoder would).
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			dst = append(dst, raw[i])
			continue
		}
		i++
		switch raw[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(raw[i+1 : i+5])
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
					r2 = hex4(raw[i+3 : i+7])
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					i += 6
					r = d
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, raw[i])
		}
	}
	return dst
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// redactString redacts the string src[i:end], whose decoded value is s.
func (w *jsonWalker) redactString(i, end int, s string) {
	red := w.r.String(s)
	if red == s {
		return
	}
	w.replace(i, end, string(appendJSONString(nil, red)))
}

// replace substitutes repl for src[i:j]; replacements come in order.
func (w *jsonWalker) replace(i, j int, repl string) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.src)+len(Redacted))
	}
	w.out = append(w.out, w.src[w.last:i]...)
	w.out = append(w.out, repl...)
	w.last = j
}

// appendJSONString appends s as a JSON string, escaping what JSON
// requires (HTML characters are left alone) and replacing invalid UTF-8
// with U+FFFD, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\':
				dst = append(dst, '\\', b)
			case b == '\n':
				dst = append(dst, '\\', 'n')
			case b == '\r':
				dst = append(dst, '\\', 'r')
			case b == '\t':
				dst = append(dst, '\\', 't')
			case b < 0x20:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			default:
				dst = append(dst, b)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, `\u202`...)
			dst = append(dst, hex[r&0xf])
		default:
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}
