package contentref

import (
	"bytes"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestExternalize(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		size         int
		externalized bool
		reason       extproto.Reason
	}{
		{"small stays inline", 2, false, ""},
		{"64 KiB stays inline", extproto.ExternalizeFieldBytes, false, ""},
		{"64 KiB + 1 is externalized", extproto.ExternalizeFieldBytes + 1, true, ""},
		{"exactly 8 MiB is externalized", extproto.ContentRefObjectBytes, true, ""},
		{"8 MiB + 1 is too large", extproto.ContentRefObjectBytes + 1, false, extproto.ReasonFrameTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore()
			t.Cleanup(s.Close)
			raw := jsonString(tc.size)
			field, ext, err := Externalize(s.Lease(), "/payload", raw)
			wantReason(t, err, tc.reason)
			switch {
			case tc.reason != "":
				if s.Stats().Objects != 0 {
					t.Error("a refused payload was stored")
				}
			case !tc.externalized:
				if !bytes.Equal(field, raw) || ext != nil {
					t.Errorf("inline payload came back as %d bytes with %d descriptors", len(field), len(ext))
				}
			default:
				if string(field) != "null" || len(ext) != 1 {
					t.Fatalf("externalized field = %.20q with %d descriptors", field, len(ext))
				}
				d := ext[0]
				if d.JSONPointer != "/payload" || d.TotalBytes != int64(tc.size) || d.SHA256 != sumOf(raw) || d.Validate() != nil {
					t.Errorf("descriptor %+v", d)
				}
				got, _, ok := s.Get(d.ContentRef)
				if !ok {
					t.Fatal("descriptor names no stored object")
				}
				mustEqual(t, got, raw)
			}
		})
	}
}

// jsonString is a JSON string value of exactly n bytes (n >= 2).
func jsonString(n int) []byte {
	b := pattern(n)
	b[0], b[n-1] = '"', '"'
	return b
}
