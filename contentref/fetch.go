package contentref

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// ReadFunc sends one host/content/read and returns the host's page.
type ReadFunc func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error)

// Fetch pages the object desc names through read and verifies it as a
// sidecar must (§7.3): every page echoes the ref and offset asked for, is
// utf8, decodes to at most 256 KiB and repeats the descriptor's size and
// hash; nextOffset is present iff more data follows and equals offset plus
// the page's length; the reassembled bytes have the descriptor's size and
// SHA-256 (hex compared case-insensitively). A mismatch is protocol_error,
// an object over 8 MiB frame_too_large; an error from read is returned as
// is. desc's pointer is not looked at.
//
// Pages are pipelined: the read of the page a page's nextOffset names is
// sent before that page is decoded and hashed, so the host encodes and
// sends the next page while this one is checked. At most two reads are in
// flight, and Fetch returns only once both have ended.
func Fetch(ctx context.Context, read ReadFunc, desc extproto.ExternalizedField) ([]byte, error) {
	want, err := checkDescriptor(&desc)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := read(ctx, extproto.ContentReadParams{ContentRef: desc.ContentRef, Offset: 0})
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ahead chan fetched // the next page's read, in flight
	defer func() {
		if ahead != nil {
			cancel()
			<-ahead
		}
	}()
	buf := make([]byte, desc.TotalBytes)
	h := sha256.New()
	var off int64
	for {
		if r != nil && r.NextOffset != nil && *r.NextOffset > off && *r.NextOffset < desc.TotalBytes {
			ahead = make(chan fetched, 1)
			go func(ch chan<- fetched, next int64) {
				p, err := read(rctx, extproto.ContentReadParams{ContentRef: desc.ContentRef, Offset: next})
				ch <- fetched{p, err}
			}(ahead, *r.NextOffset)
		}
		n, err := decodePage(r, &desc, want, off, buf)
		if err != nil {
			return nil, err
		}
		h.Write(buf[off : off+n])
		off += n
		if r.NextOffset == nil {
			break
		}
		// checkNext made sure nextOffset is off, inside the object: the
		// read in flight is the one for it.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := <-ahead
		ahead = nil
		if f.err != nil {
			return nil, f.err
		}
		r = f.page
	}
	var got [sha256.Size]byte
	if h.Sum(got[:0]); got != want {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "content ref %q: reassembled bytes do not match sha256 %s", desc.ContentRef, desc.SHA256)
	}
	return buf, nil
}

// fetched is a page read ahead.
type fetched struct {
	page *extproto.ContentReadResult
	err  error
}

// ResolveIncoming is the sidecar's inbound rule for the externalizable
// member at pointer (the intercept or event "/payload"): the same envelope
// rules as Resolve, then Fetch. With no descriptor it returns inline as is.
func ResolveIncoming(ctx context.Context, read ReadFunc, pointer string, inline json.RawMessage, ext []extproto.ExternalizedField) (json.RawMessage, error) {
	d, err := envelope(pointer, inline, ext)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return inline, nil
	}
	return Fetch(ctx, read, *d)
}

// checkDescriptor validates what Fetch is asked to read and returns its
// digest.
func checkDescriptor(d *extproto.ExternalizedField) ([sha256.Size]byte, error) {
	sum, ok := parseSHA256(d.SHA256)
	switch {
	case strings.TrimSpace(d.ContentRef) == "":
		return sum, extproto.NewError(extproto.ReasonProtocolError, "externalized descriptor has a blank contentRef")
	case d.TotalBytes < 0:
		return sum, extproto.Errorf(extproto.ReasonProtocolError, "externalized descriptor has totalBytes %d", d.TotalBytes)
	case !ok:
		return sum, extproto.Errorf(extproto.ReasonProtocolError, "externalized descriptor has sha256 %q, want 64 hex characters", d.SHA256)
	}
	return sum, checkObjectSize(d.TotalBytes)
}

// decodePage checks page r, asked for at off, against desc and decodes its
// data into buf[off:], returning the number of bytes it holds.
func decodePage(r *extproto.ContentReadResult, desc *extproto.ExternalizedField, want [sha256.Size]byte, off int64, buf []byte) (int64, error) {
	if r == nil {
		return 0, extproto.NewError(extproto.ReasonProtocolError, "host/content/read returned no page")
	}
	if err := checkObjectSize(r.TotalBytes); err != nil {
		return 0, err
	}
	sum, ok := parseSHA256(r.SHA256)
	switch {
	case r.ContentRef != desc.ContentRef:
		return 0, pageErrorf(desc, off, "echoed contentRef %q", r.ContentRef)
	case r.Offset != off:
		return 0, pageErrorf(desc, off, "echoed offset %d", r.Offset)
	case r.Encoding != extproto.EncodingUTF8:
		return 0, pageErrorf(desc, off, "encoding %q, want utf8", r.Encoding)
	case r.TotalBytes != desc.TotalBytes:
		return 0, pageErrorf(desc, off, "totalBytes %d, descriptor says %d", r.TotalBytes, desc.TotalBytes)
	case !ok || sum != want:
		return 0, pageErrorf(desc, off, "sha256 %q, descriptor says %s", r.SHA256, desc.SHA256)
	case len(r.DataBase64) > maxPageBase64 || len(r.DataBase64)%4 != 0:
		return 0, pageErrorf(desc, off, "dataBase64 of %d characters is not padded base64 of at most %d bytes", len(r.DataBase64), extproto.ContentRefChunkBytes)
	}
	n := decodedLen(r.DataBase64)
	end := off + n
	if n > extproto.ContentRefChunkBytes {
		return 0, pageErrorf(desc, off, "%d bytes exceed the %d-byte page limit", n, extproto.ContentRefChunkBytes)
	}
	if end > desc.TotalBytes {
		return 0, pageErrorf(desc, off, "%d bytes run past totalBytes %d", n, desc.TotalBytes)
	}
	got, err := strictBase64.Decode(buf[off:end:end], unsafeBytes(r.DataBase64))
	if err != nil || int64(got) != n {
		return 0, pageErrorf(desc, off, "dataBase64 is not standard padded base64")
	}
	if err := checkNext(r, desc, off, end); err != nil {
		return 0, err
	}
	return n, nil
}

// checkNext enforces nextOffset: present iff bytes follow, and then equal
// to the end of this page, which must lie past off.
func checkNext(r *extproto.ContentReadResult, desc *extproto.ExternalizedField, off, end int64) error {
	switch {
	case r.NextOffset == nil && end != desc.TotalBytes:
		return pageErrorf(desc, off, "last page ends at %d of %d bytes", end, desc.TotalBytes)
	case r.NextOffset == nil:
		return nil
	case *r.NextOffset != end:
		return pageErrorf(desc, off, "nextOffset %d, page ends at %d", *r.NextOffset, end)
	case end == off || end == desc.TotalBytes:
		return pageErrorf(desc, off, "nextOffset %d does not lead to more data", *r.NextOffset)
	}
	return nil
}

func pageErrorf(desc *extproto.ExternalizedField, off int64, format string, args ...any) error {
	return extproto.Errorf(extproto.ReasonProtocolError, "content ref %q page at %d: "+format, append([]any{desc.ContentRef, off}, args...)...)
}
