package contentref

import (
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Resolve is the host's inbound rule for the externalizable member at
// pointer of a sidecar's result (the intercept "/replacement"): with no
// descriptor it returns inline as is; otherwise the descriptor must name
// an object in store whose size and SHA-256 (exact lowercase compare)
// match it, and Resolve returns its bytes for the caller to strictly
// decode. The bytes are shared with the store and must not be modified.
//
// Envelope violations, a malformed descriptor and a size or hash mismatch
// are protocol_error; an unknown or expired ref is content_ref_expired; a
// descriptor over 8 MiB is frame_too_large.
func Resolve(store *Store, pointer string, inline json.RawMessage, ext []extproto.ExternalizedField) (json.RawMessage, error) {
	d, err := envelope(pointer, inline, ext)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return inline, nil
	}
	data, _, ok := store.Get(d.ContentRef)
	if !ok {
		return nil, extproto.Errorf(extproto.ReasonContentRefExpired, "content ref %q is unknown or has expired", d.ContentRef)
	}
	if int64(len(data)) != d.TotalBytes {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "content ref %q holds %d bytes, descriptor says %d", d.ContentRef, len(data), d.TotalBytes)
	}
	// Hash the bytes themselves rather than trust the digest taken at Put:
	// this is the one place host-held bytes re-enter as a sidecar's answer.
	if sum := hexSHA256(data); sum != d.SHA256 {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "content ref %q has sha256 %s, descriptor says %s", d.ContentRef, sum, d.SHA256)
	}
	return data, nil
}
