package extproto

import "encoding/base64"

// Content-store DTOs: host/content/read.

// ContentReadParams asks for the page of a content ref starting at Offset.
type ContentReadParams struct {
	ContentRef string `json:"contentRef" rx:"nonempty"`
	Offset     int64  `json:"offset" rx:"min=0"`
}

// ContentReadResult is one page. TotalBytes and SHA256 describe the whole
// object; NextOffset is present iff more data follows.
type ContentReadResult struct {
	ContentRef string          `json:"contentRef" rx:"nonempty"`
	DataBase64 string          `json:"dataBase64"`
	Encoding   ContentEncoding `json:"encoding"`
	NextOffset *int64          `json:"nextOffset,omitempty" rx:"min=0"`
	Offset     int64           `json:"offset" rx:"min=0"`
	SHA256     string          `json:"sha256"`
	TotalBytes int64           `json:"totalBytes" rx:"min=0"`
}

// Validate checks the page's members, including the SHA256 format.
func (r *ContentReadResult) Validate() error {
	switch {
	case isBlank(r.ContentRef):
		return fieldErrorf("/contentRef", "must not be blank")
	case !r.Encoding.Valid():
		return enumError("/encoding", string(r.Encoding), r.Encoding.enumValues())
	case r.NextOffset != nil && *r.NextOffset < 0:
		return fieldErrorf("/nextOffset", "must be >= 0")
	case r.Offset < 0:
		return fieldErrorf("/offset", "must be >= 0")
	case r.TotalBytes < 0:
		return fieldErrorf("/totalBytes", "must be >= 0")
	case !ValidSHA256(r.SHA256):
		return fieldErrorf("/sha256", "must be 64 lowercase hex characters")
	}
	return nil
}

// ContentPage is a page whose data is still raw bytes: it encodes exactly
// as the ContentReadResult with DataBase64 the standard padded base64 of
// Data (which must not change until it is encoded), writing the base64
// straight into the frame. The host serves host/content/read with it: a
// page's base64 is then never a string of its own that the frame copies
// and scans again.
type ContentPage struct {
	ContentRef string
	Data       []byte
	Encoding   ContentEncoding
	NextOffset *int64
	Offset     int64
	SHA256     string
	TotalBytes int64
}

// Result is the page as the ContentReadResult it encodes as.
func (p *ContentPage) Result() *ContentReadResult {
	return &ContentReadResult{
		ContentRef: p.ContentRef,
		DataBase64: base64.StdEncoding.EncodeToString(p.Data),
		Encoding:   p.Encoding,
		NextOffset: p.NextOffset,
		Offset:     p.Offset,
		SHA256:     p.SHA256,
		TotalBytes: p.TotalBytes,
	}
}

// MarshalJSON is the page's ContentReadResult's JSON.
func (p *ContentPage) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }
