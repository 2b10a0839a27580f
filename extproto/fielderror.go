package extproto

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FieldError is a decoding or validation failure at one place of a JSON
// document: Pointer is the RFC 6901 pointer of the offending member ("" for
// the document itself) and Msg says what is wrong with it.
type FieldError struct {
	Pointer string
	Msg     string
}

func (e *FieldError) Error() string {
	if e.Pointer == "" {
		return e.Msg
	}
	return e.Pointer + ": " + e.Msg
}

func fieldErrorf(pointer, format string, args ...any) *FieldError {
	return &FieldError{Pointer: pointer, Msg: fmt.Sprintf(format, args...)}
}

// enumError reports a value outside a closed set, quoting the value
// (clipped, since it comes from the peer) and listing the set.
func enumError(pointer, value string, set []string) *FieldError {
	return fieldErrorf(pointer, "value %q not in [%s]", clip(value), strings.Join(set, " "))
}

// underPath places err, found inside a nested value, under the path
// segments segs (member names or array indexes). Errors that are not
// FieldErrors (a custom Validate's plain error) become one.
func underPath(err error, segs ...any) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		fe = &FieldError{Msg: err.Error()}
	} else {
		fe = &FieldError{Pointer: fe.Pointer, Msg: fe.Msg}
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		switch s := s.(type) {
		case string:
			b.WriteString(escapePointer(s))
		case int:
			b.WriteString(strconv.Itoa(s))
		default:
			panic(fmt.Sprintf("protocol: path segment of type %T", s))
		}
	}
	fe.Pointer = b.String() + fe.Pointer
	return fe
}

// escapePointer escapes one RFC 6901 reference token.
func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// clip bounds a peer-supplied value quoted in an error message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
