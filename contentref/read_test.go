package contentref

import (
	"bytes"
	"encoding/base64"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestReadPages(t *testing.T) {
	t.Parallel()
	const chunk = extproto.ContentRefChunkBytes
	cases := []struct {
		name  string
		size  int
		pages int
	}{
		{"empty", 0, 1},
		{"one byte", 1, 1},
		{"exactly one page", chunk, 1},
		{"one page and a byte", chunk + 1, 2},
		{"5 MiB", 5 << 20, 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore()
			t.Cleanup(s.Close)
			data := pattern(tc.size)
			d := put(t, s.Lease(), data)
			var got []byte
			var off int64
			pages := 0
			for {
				r, err := s.Read(&extproto.ContentReadParams{ContentRef: d.Ref, Offset: off})
				if err != nil {
					t.Fatalf("page at %d: %v", off, err)
				}
				pages++
				if r.ContentRef != d.Ref || r.Offset != off || r.Encoding != extproto.EncodingUTF8 || r.TotalBytes != int64(tc.size) || r.SHA256 != d.SHA256 {
					t.Fatalf("page at %d: header %+v", off, *r)
				}
				if err := r.Validate(); err != nil {
					t.Fatalf("page at %d fails Validate: %v", off, err)
				}
				b, err := base64.StdEncoding.Strict().DecodeString(r.DataBase64)
				if err != nil {
					t.Fatalf("page at %d: %v", off, err)
				}
				if len(b) > chunk {
					t.Fatalf("page at %d has %d bytes", off, len(b))
				}
				if !bytes.Equal(b, data[off:off+int64(len(b))]) {
					t.Fatalf("page at %d does not start exactly at its offset", off)
				}
				got = append(got, b...)
				end := off + int64(len(b))
				more := end < int64(tc.size)
				if (r.NextOffset != nil) != more {
					t.Fatalf("page at %d: nextOffset present = %v, more data = %v", off, r.NextOffset != nil, more)
				}
				if !more {
					break
				}
				if *r.NextOffset != end {
					t.Fatalf("page at %d: nextOffset %d, want %d", off, *r.NextOffset, end)
				}
				off = end
			}
			mustEqual(t, got, data)
			if pages != tc.pages {
				t.Errorf("%d pages, want %d", pages, tc.pages)
			}
		})
	}
}

func TestReadOffsets(t *testing.T) {
	t.Parallel()
	const size = 300000
	s := NewStore()
	t.Cleanup(s.Close)
	data := pattern(size)
	d := put(t, s.Lease(), data)
	cases := []struct {
		name   string
		ref    string
		offset int64
		reason extproto.Reason
		bytes  int
		next   int64 // 0: no nextOffset
	}{
		{"unaligned offset", d.Ref, 1, "", extproto.ContentRefChunkBytes, 1 + extproto.ContentRefChunkBytes},
		{"last partial page", d.Ref, size - 5, "", 5, 0},
		{"offset == totalBytes", d.Ref, size, "", 0, 0},
		{"offset past the end", d.Ref, size + 1, extproto.ReasonContentRefExpired, 0, 0},
		{"negative offset", d.Ref, -1, extproto.ReasonContentRefExpired, 0, 0},
		{"unknown ref", "content_000000000000000000000000", 0, extproto.ReasonContentRefExpired, 0, 0},
		{"blank ref", " ", 0, extproto.ReasonInvalidParams, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, err := s.Read(&extproto.ContentReadParams{ContentRef: tc.ref, Offset: tc.offset})
			wantReason(t, err, tc.reason)
			// Page answers the same read with the same error or the
			// same page on the wire.
			pg, perr := s.Page(&extproto.ContentReadParams{ContentRef: tc.ref, Offset: tc.offset})
			wantReason(t, perr, tc.reason)
			if err != nil {
				return
			}
			want, _ := r.AppendJSON(nil)
			if got, _ := pg.AppendJSON(nil); !bytes.Equal(got, want) {
				t.Errorf("Page encodes as %.120s, Read as %.120s", got, want)
			}
			b, _ := base64.StdEncoding.DecodeString(r.DataBase64)
			if len(b) != tc.bytes || !bytes.Equal(b, data[tc.offset:tc.offset+int64(len(b))]) {
				t.Errorf("page holds %d bytes, want %d from offset %d", len(b), tc.bytes, tc.offset)
			}
			switch {
			case tc.next == 0 && r.NextOffset != nil:
				t.Errorf("nextOffset %d on the last page", *r.NextOffset)
			case tc.next != 0 && (r.NextOffset == nil || *r.NextOffset != tc.next):
				t.Errorf("nextOffset %v, want %d", r.NextOffset, tc.next)
			}
		})
	}
}

func TestReadNilParams(t *testing.T) {
	t.Parallel()
	_, err := NewStore().Read(nil)
	wantReason(t, err, extproto.ReasonInvalidParams)
	_, err = NewStore().Page(nil)
	wantReason(t, err, extproto.ReasonInvalidParams)
}
