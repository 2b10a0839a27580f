package contentref

import (
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// page is a read result with room for its NextOffset, so one page costs
// one allocation besides its base64 text.
type page struct {
	res  extproto.ContentReadResult
	next int64
}

// Read serves host/content/read: at most 256 KiB of the object starting
// exactly at p.Offset, as standard padded base64, with the whole object's
// size and hash, and NextOffset iff more data follows. An unknown,
// evicted or expired ref and an offset outside [0, totalBytes] fail with
// content_ref_expired; missing params or a blank ref with invalid_params.
func (s *Store) Read(p *extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
	e, end, err := s.span(p)
	if err != nil {
		return nil, err
	}
	pg := &page{res: extproto.ContentReadResult{
		ContentRef: e.ref,
		DataBase64: encodeBase64(e.data[p.Offset:end]),
		Encoding:   extproto.EncodingUTF8,
		Offset:     p.Offset,
		SHA256:     e.sum,
		TotalBytes: int64(len(e.data)),
	}}
	if end < int64(len(e.data)) {
		pg.next = end
		pg.res.NextOffset = &pg.next
	}
	return &pg.res, nil
}

// rawPage is a ContentPage with room for its NextOffset.
type rawPage struct {
	pg   extproto.ContentPage
	next int64
}

// Page is Read with the page's bytes not yet base64-encoded: the page
// encodes as exactly the result Read returns, its base64 written straight
// into the frame (the host answers host/content/read with it). Its Data
// is the store's own, never written.
func (s *Store) Page(p *extproto.ContentReadParams) (*extproto.ContentPage, error) {
	e, end, err := s.span(p)
	if err != nil {
		return nil, err
	}
	pg := &rawPage{pg: extproto.ContentPage{
		ContentRef: e.ref,
		Data:       e.data[p.Offset:end:end],
		Encoding:   extproto.EncodingUTF8,
		Offset:     p.Offset,
		SHA256:     e.sum,
		TotalBytes: int64(len(e.data)),
	}}
	if end < int64(len(e.data)) {
		pg.next = end
		pg.pg.NextOffset = &pg.next
	}
	return &pg.pg, nil
}

// span checks a read and returns the object and where the page ends.
func (s *Store) span(p *extproto.ContentReadParams) (*entry, int64, error) {
	if p == nil || strings.TrimSpace(p.ContentRef) == "" {
		return nil, 0, extproto.NewError(extproto.ReasonInvalidParams, "")
	}
	e := s.lookup(p.ContentRef)
	if e == nil {
		return nil, 0, extproto.Errorf(extproto.ReasonContentRefExpired, "content ref %q is unknown or has expired", p.ContentRef)
	}
	total := int64(len(e.data))
	if p.Offset < 0 || p.Offset > total {
		return nil, 0, extproto.Errorf(extproto.ReasonContentRefExpired, "offset %d is outside content ref %q of %d bytes", p.Offset, e.ref, total)
	}
	return e, min(p.Offset+extproto.ContentRefChunkBytes, total), nil
}
