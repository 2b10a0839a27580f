package contentref

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	s := NewStore(WithClock(clk))
	t.Cleanup(s.Close)
	data := jsonString(100000)
	d := put(t, s.Lease(), data)
	gone := s.Lease()
	expired := put(t, gone, jsonString(70000))
	gone.Release()
	clk.Advance(DefaultGrace)

	good := d.Field("/replacement")
	with := func(f func(*extproto.ExternalizedField)) []extproto.ExternalizedField {
		c := good
		f(&c)
		return []extproto.ExternalizedField{c}
	}
	inline := json.RawMessage(`{"text":"hi"}`)
	cases := []struct {
		name   string
		inline json.RawMessage
		ext    []extproto.ExternalizedField
		reason extproto.Reason
		want   []byte
	}{
		{"inline, no descriptors", inline, nil, "", inline},
		{"inline, empty list", inline, []extproto.ExternalizedField{}, "", inline},
		{"absent and not externalized", nil, nil, "", nil},
		{"externalized, null inline", json.RawMessage("null"), []extproto.ExternalizedField{good}, "", data},
		{"externalized, absent inline", nil, []extproto.ExternalizedField{good}, "", data},
		{"externalized, spaced null", json.RawMessage(" null\n"), []extproto.ExternalizedField{good}, "", data},
		{"inline and externalized", inline, []extproto.ExternalizedField{good}, extproto.ReasonProtocolError, nil},
		{"inline empty string and externalized", json.RawMessage(`""`), []extproto.ExternalizedField{good}, extproto.ReasonProtocolError, nil},
		{"two descriptors", nil, []extproto.ExternalizedField{good, good}, extproto.ReasonProtocolError, nil},
		{"wrong pointer", nil, with(func(f *extproto.ExternalizedField) { f.JSONPointer = "/payload" }), extproto.ReasonProtocolError, nil},
		{"uppercase sha256", nil, with(func(f *extproto.ExternalizedField) { f.SHA256 = strings.ToUpper(f.SHA256) }), extproto.ReasonProtocolError, nil},
		{"prefixed sha256", nil, with(func(f *extproto.ExternalizedField) { f.SHA256 = "sha256:" + f.SHA256[7:] }), extproto.ReasonProtocolError, nil},
		{"short sha256", nil, with(func(f *extproto.ExternalizedField) { f.SHA256 = f.SHA256[:63] }), extproto.ReasonProtocolError, nil},
		{"blank ref", nil, with(func(f *extproto.ExternalizedField) { f.ContentRef = " " }), extproto.ReasonProtocolError, nil},
		{"negative totalBytes", nil, with(func(f *extproto.ExternalizedField) { f.TotalBytes = -1 }), extproto.ReasonProtocolError, nil},
		{"unknown ref", nil, with(func(f *extproto.ExternalizedField) { f.ContentRef = "content_000000000000000000000000" }), extproto.ReasonContentRefExpired, nil},
		{"expired ref", nil, []extproto.ExternalizedField{expired.Field("/replacement")}, extproto.ReasonContentRefExpired, nil},
		{"over 8 MiB", nil, with(func(f *extproto.ExternalizedField) { f.TotalBytes = extproto.ContentRefObjectBytes + 1 }), extproto.ReasonFrameTooLarge, nil},
		{"wrong length", nil, with(func(f *extproto.ExternalizedField) { f.TotalBytes-- }), extproto.ReasonProtocolError, nil},
		{"tampered hash", nil, with(func(f *extproto.ExternalizedField) { f.SHA256 = sumOf([]byte("other")) }), extproto.ReasonProtocolError, nil},
		{"another object's hash", nil, with(func(f *extproto.ExternalizedField) { f.SHA256 = expired.SHA256 }), extproto.ReasonProtocolError, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := Resolve(s, "/replacement", tc.inline, tc.ext)
			wantReason(t, err, tc.reason)
			if err != nil {
				if got != nil {
					t.Errorf("error with %d bytes", len(got))
				}
				return
			}
			if !bytes.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("got %.40q, want %.40q", got, tc.want)
			}
		})
	}
}

// Resolving within the call still works after the payload's lease is
// released, until the grace ends.
func TestResolveInsideGrace(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	s := NewStore(WithClock(clk))
	t.Cleanup(s.Close)
	l := s.Lease()
	data := jsonString(70000)
	_, ext, err := Externalize(l, "/payload", data)
	if err != nil {
		t.Fatal(err)
	}
	ext[0].JSONPointer = "/replacement"
	l.Release()
	clk.Advance(DefaultGrace - time.Millisecond)
	got, err := Resolve(s, "/replacement", json.RawMessage("null"), ext)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, data)
	_ = append(got, 'x') // the caller may append without touching the store
	if again, _ := Resolve(s, "/replacement", nil, ext); !bytes.Equal(again, data) {
		t.Fatal("appending to a resolved value changed the store")
	}
	clk.Advance(time.Millisecond)
	_, err = Resolve(s, "/replacement", json.RawMessage("null"), ext)
	wantReason(t, err, extproto.ReasonContentRefExpired)
}
