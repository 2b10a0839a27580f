package wire

import "github.com/rx-bridge/rx-bridge/extproto"

// A validating JSON scanner. The envelope is decoded in one pass over the
// line (see envelope.go); this file only knows JSON syntax. It accepts
// exactly what encoding/json's Valid accepts, including its nesting limit,
// so "parse error" here means what it means to every other Go decoder,
// and the fuzz target checks the two agree.

// maxDepth is encoding/json's nesting limit: 10000 open containers are
// valid, one more is a syntax error.
const maxDepth = 10000

// scanner holds the container stack so validating a deeply nested value
// neither recurses nor allocates per frame.
type scanner struct {
	stack []byte
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// value validates the JSON value that starts at data[i] (leading
// whitespace allowed) and returns the index just past it. depth is the
// number of containers already open around the value.
func (s *scanner) value(data []byte, i, depth int) (end int, ok bool) {
	stack := s.stack[:0]
	defer func() { s.stack = stack[:0] }()
	for {
		// Expect a value at i.
		i = skipSpace(data, i)
		if i >= len(data) {
			return i, false
		}
		switch c := data[i]; c {
		case '{', '[':
			if depth+len(stack)+1 > maxDepth {
				return i, false
			}
			i = skipSpace(data, i+1)
			if i < len(data) && data[i] == c+2 { // '}' is '{'+2, ']' is '['+2
				i++
				break
			}
			stack = append(stack, c)
			if c == '{' {
				if i, ok = s.memberKey(data, i); !ok {
					return i, false
				}
			}
			continue
		case '"':
			if i, _, ok = scanString(data, i); !ok {
				return i, false
			}
		case 't':
			if i, ok = literal(data, i, "true"); !ok {
				return i, false
			}
		case 'f':
			if i, ok = literal(data, i, "false"); !ok {
				return i, false
			}
		case 'n':
			if i, ok = literal(data, i, "null"); !ok {
				return i, false
			}
		default:
			if i, ok = scanNumber(data, i); !ok {
				return i, false
			}
		}
		// A value ended at i: close containers or move to the next element.
		for {
			if len(stack) == 0 {
				return i, true
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return i, false
			}
			top := stack[len(stack)-1]
			c := data[i]
			if c == top+2 {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if c != ',' {
				return i, false
			}
			i++
			if top == '{' {
				if i, ok = s.memberKey(data, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// memberKey scans `"key" :` and returns the index after the colon.
func (s *scanner) memberKey(data []byte, i int) (int, bool) {
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != '"' {
		return i, false
	}
	i, _, ok := scanString(data, i)
	if !ok {
		return i, false
	}
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		return i, false
	}
	return i + 1, true
}

// scanString validates the string starting at the quote data[i] and
// returns the index after the closing quote and whether it has escapes.
// Like encoding/json it does not validate UTF-8 (decoders replace invalid
// bytes with U+FFFD).
func scanString(data []byte, i int) (end int, escaped, ok bool) {
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(data) {
				return i, escaped, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return i, escaped, false
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return i, escaped, false
					}
				}
				i += 6
			default:
				return i, escaped, false
			}
		case c < 0x20:
			return i, escaped, false
		default:
			i++
			i += extproto.PlainLen(data[i:])
		}
	}
	return i, escaped, false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func literal(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}

// scanNumber validates -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func scanNumber(data []byte, i int) (int, bool) {
	if i < len(data) && data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return i, false
	}
	switch {
	case data[i] == '0':
		i++
	case '1' <= data[i] && data[i] <= '9':
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return i, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, true
}

// valid reports whether data is exactly one JSON value with optional
// surrounding whitespace.
func (s *scanner) valid(data []byte) bool {
	end, ok := s.value(data, 0, 0)
	return ok && skipSpace(data, end) == len(data)
}

// parseInt parses a JSON integer token (no fraction, no exponent) that
// fits an int64. It rejects everything else, which is the "integer ids
// only" rule: 1.0, 1e0 and "1" are not ids.
func parseInt(tok []byte) (int64, bool) {
	neg := false
	if len(tok) > 0 && tok[0] == '-' {
		neg = true
		tok = tok[1:]
	}
	if len(tok) == 0 || len(tok) > 19 || (tok[0] == '0' && len(tok) > 1) {
		return 0, false
	}
	var u uint64
	for _, c := range tok {
		if !isDigit(c) {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	const maxInt64 = 1<<63 - 1
	if neg {
		if u > maxInt64+1 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > maxInt64 {
		return 0, false
	}
	return int64(u), true
}
