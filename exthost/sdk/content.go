package sdk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// Content references (SPEC §5, PROTOCOL_DETAILS §7). The host moves a
// payload over 64 KiB into its content store and sends null plus a
// descriptor; the SDK pages the bytes back with host/content/read and
// verifies them before any handler sees the payload.

// payloadPointer is the only field the host externalizes towards us.
const payloadPointer = "/payload"

// ReadContent reads the whole object behind a content ref, page by page,
// and verifies its length and SHA-256. An unknown or expired ref is
// content_ref_expired; pages that do not add up are protocol_error.
func (h *Host) ReadContent(ctx context.Context, ref string) ([]byte, error) {
	return h.readContent(ctx, ref, nil)
}

// resolvePayload returns the payload's bytes: inline ones as they are, an
// externalized one read and checked against its descriptor.
func (s *server) resolvePayload(ctx context.Context, payload json.RawMessage, ext []protocol.ExternalizedField) (json.RawMessage, error) {
	if len(ext) == 0 {
		return payload, nil
	}
	if len(ext) > 1 {
		return nil, protocol.Errorf(protocol.ReasonProtocolError, "sdk: %d externalized fields; only %s is externalizable", len(ext), payloadPointer)
	}
	if ext[0].JSONPointer != payloadPointer {
		return nil, protocol.Errorf(protocol.ReasonProtocolError, "sdk: externalized field %q; only %s is externalizable", clip(ext[0].JSONPointer), payloadPointer)
	}
	if !bytes.Equal(bytes.TrimSpace(payload), []byte("null")) {
		return nil, protocol.NewError(protocol.ReasonProtocolError, "sdk: payload is both inline and externalized")
	}
	return s.host.readContent(ctx, ext[0].ContentRef, &ext[0])
}

// readContent pages ref from offset 0. want, when set, is the descriptor
// the object must match as well.
func (h *Host) readContent(ctx context.Context, ref string, want *protocol.ExternalizedField) ([]byte, error) {
	if want != nil && want.TotalBytes > protocol.ContentRefObjectBytes {
		return nil, tooLarge(ref, want.TotalBytes)
	}
	var (
		buf    []byte
		total  int64 = -1
		sum    string
		offset int64
	)
	for {
		page, err := call[protocol.ContentReadResult](ctx, h, protocol.MethodContentRead, protocol.ContentReadParams{ContentRef: ref, Offset: offset})
		if err != nil {
			return nil, err
		}
		if page.ContentRef != ref || page.Offset != offset {
			return nil, contentErr(ref, "the page for offset %d echoes ref %q offset %d", offset, clip(page.ContentRef), page.Offset)
		}
		if total < 0 {
			total, sum = page.TotalBytes, page.SHA256
			if total > protocol.ContentRefObjectBytes {
				return nil, tooLarge(ref, total)
			}
			if want != nil && (want.TotalBytes != total || !strings.EqualFold(want.SHA256, sum)) {
				return nil, contentErr(ref, "the store holds %d bytes with SHA-256 %s, the descriptor says %d bytes with %s", total, sum, want.TotalBytes, want.SHA256)
			}
			buf = make([]byte, 0, total)
		} else if page.TotalBytes != total || page.SHA256 != sum {
			return nil, contentErr(ref, "the object's size or SHA-256 changed between pages")
		}
		// Decoded length is at most 3/4 of the text: refuse an oversized
		// page before decoding it.
		if base64.StdEncoding.DecodedLen(len(page.DataBase64)) > protocol.ContentRefChunkBytes+2 {
			return nil, contentErr(ref, "the page at offset %d exceeds %d bytes", offset, protocol.ContentRefChunkBytes)
		}
		start := len(buf)
		buf, err = base64.StdEncoding.AppendDecode(buf, []byte(page.DataBase64))
		if err != nil {
			return nil, contentErr(ref, "the page at offset %d is not base64: %v", offset, err)
		}
		n := int64(len(buf) - start)
		if n > protocol.ContentRefChunkBytes || int64(len(buf)) > total {
			return nil, contentErr(ref, "the page at offset %d holds %d bytes, more than the object or page allows", offset, n)
		}
		offset += n
		if page.NextOffset == nil {
			break
		}
		if *page.NextOffset != offset || n == 0 {
			return nil, contentErr(ref, "nextOffset %d does not follow the %d bytes read from offset %d", *page.NextOffset, n, offset-n)
		}
	}
	if int64(len(buf)) != total {
		return nil, contentErr(ref, "read %d of %d bytes", len(buf), total)
	}
	got := sha256.Sum256(buf)
	if !strings.EqualFold(hex.EncodeToString(got[:]), sum) {
		return nil, contentErr(ref, "SHA-256 mismatch: the bytes hash to %x, the store says %s", got, sum)
	}
	return buf, nil
}

func contentErr(ref, format string, args ...any) error {
	return protocol.Errorf(protocol.ReasonProtocolError, "sdk: content %s: "+format, append([]any{clip(ref)}, args...)...)
}

func tooLarge(ref string, n int64) error {
	return protocol.Errorf(protocol.ReasonFrameTooLarge, "sdk: content %s is %d bytes, over the %d-byte object limit", clip(ref), n, protocol.ContentRefObjectBytes)
}
