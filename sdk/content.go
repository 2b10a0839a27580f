package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/contentref"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// Content references (SPEC §5, PROTOCOL_DETAILS §7). The host moves a
// payload over 64 KiB into its content store and sends null plus a
// descriptor; the SDK pages the bytes back with host/content/read and
// verifies them (contentref.Fetch: every page, the size and the SHA-256)
// before any handler sees the payload.

// payloadPointer is the only field the host externalizes towards us.
const payloadPointer = "/payload"

// ReadContent reads the whole object behind a content ref, page by page,
// and verifies its length and SHA-256 against what the host's pages
// declare. An unknown or expired ref is content_ref_expired; pages that do
// not add up are protocol_error.
func (h *Host) ReadContent(ctx context.Context, ref string) ([]byte, error) {
	read := h.contentReader()
	first, err := read(ctx, extproto.ContentReadParams{ContentRef: ref, Offset: 0})
	if err != nil {
		return nil, err
	}
	// The first page names the object's size and hash; Fetch then checks
	// every page, the first one included, against them.
	desc := extproto.ExternalizedField{ContentRef: ref, JSONPointer: payloadPointer, TotalBytes: first.TotalBytes, SHA256: first.SHA256}
	replayed := false
	return contentref.Fetch(ctx, func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		if p.Offset == 0 && !replayed {
			replayed = true
			return first, nil
		}
		return read(ctx, p)
	}, desc)
}

// resolvePayload returns the payload's bytes: inline ones as they are, an
// externalized one read and checked against its descriptor.
func (s *server) resolvePayload(ctx context.Context, payload json.RawMessage, ext []extproto.ExternalizedField) (json.RawMessage, error) {
	return contentref.ResolveIncoming(ctx, s.host.contentReader(), payloadPointer, payload, ext)
}

// contentReader sends host/content/read through this connection.
func (h *Host) contentReader() contentref.ReadFunc {
	return func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		page, err := call[extproto.ContentReadResult](ctx, h, extproto.MethodContentRead, p)
		if err != nil {
			return nil, err
		}
		return page, nil
	}
}
