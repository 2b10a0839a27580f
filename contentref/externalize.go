package contentref

import (
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Externalize applies the outbound rule to the externalizable field at
// pointer (for example "/payload"): raw over 64 KiB is stored under lease
// and replaced by `null` plus its descriptor; anything else is returned
// unchanged with no descriptor. The store keeps raw itself when it
// externalizes it. Over 8 MiB fails with frame_too_large, before anything
// is stored or sent.
func Externalize(lease *Lease, pointer string, raw json.RawMessage) (json.RawMessage, []extproto.ExternalizedField, error) {
	if len(raw) <= extproto.ExternalizeFieldBytes {
		return raw, nil, nil
	}
	d, err := lease.Put(raw)
	if err != nil {
		return nil, nil, err
	}
	return json.RawMessage("null"), []extproto.ExternalizedField{d.Field(pointer)}, nil
}
