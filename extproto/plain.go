package extproto

import (
	"encoding/base64"
	"encoding/binary"
	"slices"
)

// PlainLen returns how many leading bytes of b can stand in a JSON string
// as they are: ASCII from 0x20, neither '"' nor '\\'. Eight bytes at a
// time: a content page or a large payload is megabytes of such bytes,
// and a byte-by-byte scan was most of a sidecar's CPU reading one (the
// wire's frame scan uses it too).
func PlainLen(b []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(b); i += 8 {
		v := binary.LittleEndian.Uint64(b[i:])
		q, s := v^(lo*'"'), v^(lo*'\\')
		// A byte below 0x20, equal to '"' or '\\' (its xor is zero), or
		// from 0x80 sets its high bit here; borrows only ever follow such
		// a byte, so the word test is exact.
		if ((v-lo*0x20)&^v|(q-lo)&^q|(s-lo)&^s|v)&hi != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			return i
		}
	}
	return i
}

// AppendJSON appends r as encoding/json encodes it (members in field
// order, no HTML escaping): without reflection and, for the page's
// megabyte of base64, with a word-at-a-time check instead of a
// byte-at-a-time escape. The host answers host/content/read with it.
func (r *ContentReadResult) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"contentRef":`...)
	b = appendJSONString(b, r.ContentRef)
	b = append(b, `,"dataBase64":`...)
	b = appendJSONString(b, r.DataBase64)
	b = append(b, `,"encoding":`...)
	b = appendJSONString(b, string(r.Encoding))
	if r.NextOffset != nil {
		b = append(b, `,"nextOffset":`...)
		b = strconvAppendInt(b, *r.NextOffset)
	}
	b = append(b, `,"offset":`...)
	b = strconvAppendInt(b, r.Offset)
	b = append(b, `,"sha256":`...)
	b = appendJSONString(b, r.SHA256)
	b = append(b, `,"totalBytes":`...)
	b = strconvAppendInt(b, r.TotalBytes)
	return append(b, '}'), nil
}

// AppendJSON appends p as encoding/json encodes its Result, growing b
// once and encoding the base64 in place.
func (p *ContentPage) AppendJSON(b []byte) ([]byte, error) {
	n := base64.StdEncoding.EncodedLen(len(p.Data))
	b = slices.Grow(b, n+len(p.ContentRef)+len(p.SHA256)+len(p.Encoding)+160)
	b = append(b, `{"contentRef":`...)
	b = appendJSONString(b, p.ContentRef)
	b = append(b, `,"dataBase64":"`...)
	at := len(b)
	b = b[:at+n]
	base64.StdEncoding.Encode(b[at:], p.Data)
	b = append(b, `","encoding":`...)
	b = appendJSONString(b, string(p.Encoding))
	if p.NextOffset != nil {
		b = append(b, `,"nextOffset":`...)
		b = strconvAppendInt(b, *p.NextOffset)
	}
	b = append(b, `,"offset":`...)
	b = strconvAppendInt(b, p.Offset)
	b = append(b, `,"sha256":`...)
	b = appendJSONString(b, p.SHA256)
	b = append(b, `,"totalBytes":`...)
	b = strconvAppendInt(b, p.TotalBytes)
	return append(b, '}'), nil
}

// AppendJSON appends p as encoding/json encodes it, with the request
// encoded once: through encoding/json the request's own MarshalJSON
// output (the whole history and every tool schema) is scanned and
// compacted a second time, which was about a seventh of rx-bridge
// serve's CPU per prompt to a plugin provider.
func (p StreamOpenParams) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	if p.Effort != "" {
		b = append(b, `"effort":`...)
		b = appendJSONString(b, p.Effort)
		b = append(b, ',')
	}
	if p.Model != "" {
		b = append(b, `"model":`...)
		b = appendJSONString(b, p.Model)
		b = append(b, ',')
	}
	b = append(b, `"providerRef":`...)
	b = appendJSONString(b, p.ProviderRef)
	req, err := p.Request.MarshalJSON()
	if err != nil {
		return b, err
	}
	b = append(b, `,"request":`...)
	b = append(b, req...)
	b = append(b, `,"seqBase":`...)
	b = strconvAppendInt(b, p.SeqBase)
	b = append(b, `,"streamId":`...)
	b = appendJSONString(b, p.StreamID)
	return append(b, '}'), nil
}
