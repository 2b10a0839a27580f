package contentref

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Reasons the decoders of untrusted pages and descriptors may fail with.
var untrustedReasons = map[extproto.Reason]bool{
	extproto.ReasonProtocolError:     true,
	extproto.ReasonFrameTooLarge:     true,
	extproto.ReasonContentRefExpired: true,
}

// FuzzFetchPages feeds Fetch a descriptor and the pages a hostile host
// answers with, in order. Fetch must never panic and never return bytes
// whose size or SHA-256 differ from the descriptor's.
func FuzzFetchPages(f *testing.F) {
	s := NewStore()
	defer s.Close()
	l := s.Lease()
	for _, data := range [][]byte{nil, []byte("hello, world"), pattern(1000)} {
		d := mustPut(l, data)
		var pages []*extproto.ContentReadResult
		for off := int64(0); ; {
			r, _ := s.Read(&extproto.ContentReadParams{ContentRef: d.Ref, Offset: off})
			pages = append(pages, r)
			if r.NextOffset == nil {
				break
			}
			off = *r.NextOffset
		}
		f.Add(d.Ref, d.TotalBytes, d.SHA256, mustJSON(pages))
	}
	// Small pages are legal: 12 bytes in three pages.
	f.Add("content_00", int64(12), sumOf([]byte("abcdefghijkl")), []byte(`[
{"contentRef":"content_00","offset":0,"dataBase64":"YWJjZA==","nextOffset":4,"totalBytes":12,"sha256":"`+sumOf([]byte("abcdefghijkl"))+`","encoding":"utf8"},
{"contentRef":"content_00","offset":4,"dataBase64":"ZWZnaA==","nextOffset":8,"totalBytes":12,"sha256":"`+sumOf([]byte("abcdefghijkl"))+`","encoding":"utf8"},
{"contentRef":"content_00","offset":8,"dataBase64":"aWprbA==","totalBytes":12,"sha256":"`+sumOf([]byte("abcdefghijkl"))+`","encoding":"utf8"}]`))
	f.Fuzz(func(t *testing.T, ref string, total int64, sum string, pagesJSON []byte) {
		var pages []*extproto.ContentReadResult
		if json.Unmarshal(pagesJSON, &pages) != nil {
			return
		}
		calls := 0
		read := func(_ context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
			if calls >= len(pages) {
				return nil, extproto.NewError(extproto.ReasonContentRefExpired, "")
			}
			calls++
			return pages[calls-1], nil
		}
		desc := extproto.ExternalizedField{JSONPointer: "/payload", ContentRef: ref, TotalBytes: total, SHA256: sum}
		got, err := Fetch(context.Background(), read, desc)
		if err != nil {
			if !untrustedReasons[extproto.ReasonOf(err)] {
				t.Fatalf("error %v has reason %q", err, extproto.ReasonOf(err))
			}
			return
		}
		checkMatches(t, got, total, sum, strings.EqualFold)
	})
}

// FuzzResolve feeds the host's Resolve an untrusted inline value and
// descriptor list against a store holding known objects ("@0" and "@1" in
// a contentRef or sha256 stand for theirs). Resolve must never panic and
// never return bytes whose size or SHA-256 differ from the descriptor's.
func FuzzResolve(f *testing.F) {
	s := NewStore()
	defer s.Close()
	l := s.Lease()
	objs := []Descriptor{mustPut(l, []byte(`{"text":"hi"}`)), mustPut(l, jsonString(70000))}
	f.Add("/replacement", []byte("null"), []byte(`[{"jsonPointer":"/replacement","contentRef":"@0","totalBytes":13,"sha256":"@0"}]`))
	f.Add("/replacement", []byte(nil), []byte(`[{"jsonPointer":"/replacement","contentRef":"@1","totalBytes":70000,"sha256":"@1"}]`))
	f.Add("/replacement", []byte(`{"a":1}`), []byte(`[]`))
	f.Add("/replacement", []byte(`{"a":1}`), []byte(`[{"jsonPointer":"/replacement","contentRef":"@0","totalBytes":13,"sha256":"@0"}]`))
	f.Add("/replacement", []byte("null"), []byte(`[{"jsonPointer":"/payload","contentRef":"@0","totalBytes":13,"sha256":"@1"}]`))
	f.Add("/payload", []byte(" null "), []byte(`[{"jsonPointer":"/payload","contentRef":"@1","totalBytes":8388609,"sha256":"@1"},{}]`))
	f.Fuzz(func(t *testing.T, pointer string, inline, extJSON []byte) {
		var ext []extproto.ExternalizedField
		if json.Unmarshal(extJSON, &ext) != nil {
			return
		}
		for i := range ext {
			for j, o := range objs {
				at := "@" + string(rune('0'+j))
				ext[i].ContentRef = strings.ReplaceAll(ext[i].ContentRef, at, o.Ref)
				ext[i].SHA256 = strings.ReplaceAll(ext[i].SHA256, at, o.SHA256)
			}
		}
		got, err := Resolve(s, pointer, inline, ext)
		if err != nil {
			if !untrustedReasons[extproto.ReasonOf(err)] {
				t.Fatalf("error %v has reason %q", err, extproto.ReasonOf(err))
			}
			return
		}
		if len(ext) == 0 {
			if string(got) != string(inline) {
				t.Fatal("an inline value changed")
			}
			return
		}
		checkMatches(t, got, ext[0].TotalBytes, ext[0].SHA256, func(a, b string) bool { return a == b })
	})
}

func checkMatches(t *testing.T, got []byte, total int64, sum string, eq func(a, b string) bool) {
	t.Helper()
	if int64(len(got)) != total {
		t.Fatalf("returned %d bytes, descriptor says %d", len(got), total)
	}
	if actual := sumOf(got); !eq(actual, sum) {
		t.Fatalf("returned bytes hash to %s, descriptor says %q", actual, sum)
	}
}

func mustPut(l *Lease, data []byte) Descriptor {
	d, err := l.Put(data)
	if err != nil {
		panic(err)
	}
	return d
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
