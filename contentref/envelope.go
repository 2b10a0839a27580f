package contentref

import (
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// envelope checks how an externalizable field at pointer arrived and
// returns its descriptor, or nil when the field is inline. The rules are
// §7.3/§7.5's, checked before any read: an externalized field has a null
// inline value, exactly one descriptor, the expected pointer, a
// well-formed descriptor, and at most 8 MiB.
func envelope(pointer string, inline json.RawMessage, ext []extproto.ExternalizedField) (*extproto.ExternalizedField, error) {
	switch {
	case len(ext) == 0:
		return nil, nil
	case len(ext) > 1:
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "%d externalized descriptors, at most one (%s) is allowed", len(ext), pointer)
	case !isNull(inline):
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "%s is both inline and externalized", pointer)
	}
	d := &ext[0]
	if d.JSONPointer != pointer {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "externalized pointer %q, want %q", d.JSONPointer, pointer)
	}
	if err := d.Validate(); err != nil {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "invalid externalized descriptor: %w", err)
	}
	if err := checkObjectSize(d.TotalBytes); err != nil {
		return nil, err
	}
	return d, nil
}

func checkObjectSize(n int64) error {
	if n > extproto.ContentRefObjectBytes {
		return extproto.Errorf(extproto.ReasonFrameTooLarge, "content object of %d bytes exceeds the %d-byte limit", n, extproto.ContentRefObjectBytes)
	}
	return nil
}

// isNull reports whether an inline value is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	i, j := 0, len(raw)
	for i < j && isSpace(raw[i]) {
		i++
	}
	for j > i && isSpace(raw[j-1]) {
		j--
	}
	return i == j || string(raw[i:j]) == "null"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
