package extproto

import (
	"regexp"
	"strings"
	"unsafe"
)

// Small predicates shared by the Validate methods.

// isBlank is the schema's minLength rule as the protocol reads it:
// "non-empty" means non-blank after trimming white space.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// ValidSHA256 reports whether s is a hex SHA-256 as the protocol writes
// it: exactly 64 lowercase hex characters, no prefix.
func ValidSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var actionIDPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// ValidActionID reports whether id may name a UI action: `^[a-z0-9-]+$`.
func ValidActionID(id string) bool { return actionIDPattern.MatchString(id) }

// isJSONObject reports whether raw is exactly one JSON object, optionally
// surrounded by white space.
func isJSONObject(raw []byte) bool {
	d := decoder{data: raw}
	d.skipWS()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return false
	}
	if d.skipValue() != nil {
		return false
	}
	d.skipWS()
	return d.pos == len(d.data)
}

// readOnlyBytes views s as bytes without copying, for the scanner, which
// never writes to its input: tool arguments can be large.
func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
