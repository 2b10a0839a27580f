package contentref

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

func TestFetchSizes(t *testing.T) {
	t.Parallel()
	const chunk = protocol.ContentRefChunkBytes
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, protocol.ContentRefObjectBytes} {
		s := NewStore()
		t.Cleanup(s.Close)
		data := pattern(n)
		d := put(t, s.Lease(), data)
		got, err := Fetch(t.Context(), storeReader(s, nil), d.Field("/payload"))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		mustEqual(t, got, data)
	}
}

// A 5 MiB payload goes host → sidecar through externalization, and the
// sidecar's "use the bytes you sent me" comes back, hashed on both sides.
func TestFiveMiBRoundTrip(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	lease := s.Lease()
	defer lease.Release()
	payload := jsonString(5 << 20)
	field, ext, err := Externalize(lease, "/payload", payload)
	if err != nil {
		t.Fatal(err)
	}
	if ext[0].SHA256 != sumOf(payload) {
		t.Fatal("host-side hash differs")
	}
	wire, err := json.Marshal(protocol.InterceptParams{Event: "input.receive", Seq: 1, Payload: field, Externalized: ext})
	if err != nil {
		t.Fatal(err)
	}
	var in protocol.InterceptParams
	if err := json.Unmarshal(wire, &in); err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	read := func(ctx context.Context, p protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
		reads.Add(1)
		r, err := s.Read(&p)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(r) // through the wire shape, as a sidecar sees it
		var out protocol.ContentReadResult
		return &out, json.Unmarshal(b, &out)
	}
	got, err := ResolveIncoming(t.Context(), read, "/payload", in.Payload, in.Externalized)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, payload)
	if n := reads.Load(); n != 20 {
		t.Errorf("%d reads, want 20", n)
	}
	echo := in.Externalized[0]
	echo.JSONPointer = "/replacement"
	back, err := Resolve(s, "/replacement", json.RawMessage("null"), []protocol.ExternalizedField{echo})
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, back, payload)
}

func TestFetchTamperedPages(t *testing.T) {
	t.Parallel()
	const size = 600000 // three pages
	next := func(n int64) *int64 { return &n }
	cases := []struct {
		name   string
		tamper func(r *protocol.ContentReadResult)
		reason protocol.Reason
	}{
		{"untouched", func(*protocol.ContentReadResult) {}, ""},
		{"uppercase page sha256", func(r *protocol.ContentReadResult) { r.SHA256 = strings.ToUpper(r.SHA256) }, ""},
		{"wrong echoed offset", onPage(1, func(r *protocol.ContentReadResult) { r.Offset++ }), protocol.ReasonProtocolError},
		{"wrong echoed ref", onPage(0, func(r *protocol.ContentReadResult) { r.ContentRef = "content_000000000000000000000000" }), protocol.ReasonProtocolError},
		{"wrong encoding", onPage(2, func(r *protocol.ContentReadResult) { r.Encoding = "base64" }), protocol.ReasonProtocolError},
		{"page totalBytes differs", onPage(1, func(r *protocol.ContentReadResult) { r.TotalBytes++ }), protocol.ReasonProtocolError},
		{"page totalBytes over 8 MiB", onPage(0, func(r *protocol.ContentReadResult) { r.TotalBytes = protocol.ContentRefObjectBytes + 1 }), protocol.ReasonFrameTooLarge},
		{"page sha256 differs", onPage(2, func(r *protocol.ContentReadResult) { r.SHA256 = sumOf(nil) }), protocol.ReasonProtocolError},
		{"page sha256 malformed", onPage(0, func(r *protocol.ContentReadResult) { r.SHA256 = "sha256:" + r.SHA256[7:] }), protocol.ReasonProtocolError},
		{"non-advancing nextOffset", onPage(0, func(r *protocol.ContentReadResult) { r.NextOffset = next(0) }), protocol.ReasonProtocolError},
		{"nextOffset skips ahead", onPage(0, func(r *protocol.ContentReadResult) { *r.NextOffset += 1 }), protocol.ReasonProtocolError},
		{"nextOffset missing mid-object", onPage(1, func(r *protocol.ContentReadResult) { r.NextOffset = nil }), protocol.ReasonProtocolError},
		{"nextOffset on the last page", onPage(2, func(r *protocol.ContentReadResult) { r.NextOffset = next(size) }), protocol.ReasonProtocolError},
		{"short page", onPage(0, func(r *protocol.ContentReadResult) { r.DataBase64 = r.DataBase64[:len(r.DataBase64)-4] }), protocol.ReasonProtocolError},
		{"empty page mid-object", onPage(1, func(r *protocol.ContentReadResult) { r.DataBase64 = ""; r.NextOffset = next(r.Offset) }), protocol.ReasonProtocolError},
		{"oversize chunk", onPage(0, func(r *protocol.ContentReadResult) {
			r.DataBase64 = base64.StdEncoding.EncodeToString(pattern(protocol.ContentRefChunkBytes + 1))
			r.NextOffset = next(protocol.ContentRefChunkBytes + 1)
		}), protocol.ReasonProtocolError},
		{"unpadded base64", onPage(2, func(r *protocol.ContentReadResult) { r.DataBase64 = strings.TrimRight(r.DataBase64, "=") }), protocol.ReasonProtocolError},
		{"url-safe alphabet", onPage(0, func(r *protocol.ContentReadResult) { r.DataBase64 = "-_" + r.DataBase64[2:] }), protocol.ReasonProtocolError},
		{"line breaks", onPage(0, func(r *protocol.ContentReadResult) { r.DataBase64 = "\n\n\n\n" + r.DataBase64[:len(r.DataBase64)-4] }), protocol.ReasonProtocolError},
		{"non-canonical padding bits", onPage(2, func(r *protocol.ContentReadResult) {
			r.DataBase64 = r.DataBase64[:len(r.DataBase64)-4] + "QR=="
		}), protocol.ReasonProtocolError},
		{"flipped data byte", onPage(1, func(r *protocol.ContentReadResult) {
			b, _ := base64.StdEncoding.DecodeString(r.DataBase64)
			b[100] ^= 1
			r.DataBase64 = base64.StdEncoding.EncodeToString(b)
		}), protocol.ReasonProtocolError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore()
			t.Cleanup(s.Close)
			data := pattern(size - 2)
			data = append(data, 'x', 'y') // the last page ends in a padded quantum
			d := put(t, s.Lease(), data)
			got, err := Fetch(t.Context(), storeReader(s, tc.tamper), d.Field("/payload"))
			wantReason(t, err, tc.reason)
			if err == nil {
				mustEqual(t, got, data)
			} else if got != nil {
				t.Errorf("error with %d bytes", len(got))
			}
		})
	}
}

// onPage applies f to the page at index i of a 262144-byte paging.
func onPage(i int64, f func(*protocol.ContentReadResult)) func(*protocol.ContentReadResult) {
	return func(r *protocol.ContentReadResult) {
		if r.Offset == i*protocol.ContentRefChunkBytes {
			f(r)
		}
	}
}

func TestFetchDescriptor(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	data := pattern(300000)
	good := put(t, s.Lease(), data).Field("/payload")
	cases := []struct {
		name   string
		edit   func(*protocol.ExternalizedField)
		reason protocol.Reason
		reads  bool
	}{
		{"good", func(*protocol.ExternalizedField) {}, "", true},
		{"uppercase sha256", func(f *protocol.ExternalizedField) { f.SHA256 = strings.ToUpper(f.SHA256) }, "", true},
		{"over 8 MiB", func(f *protocol.ExternalizedField) { f.TotalBytes = protocol.ContentRefObjectBytes + 1 }, protocol.ReasonFrameTooLarge, false},
		{"negative size", func(f *protocol.ExternalizedField) { f.TotalBytes = -1 }, protocol.ReasonProtocolError, false},
		{"malformed sha256", func(f *protocol.ExternalizedField) { f.SHA256 = "zz" + f.SHA256[2:] }, protocol.ReasonProtocolError, false},
		{"blank ref", func(f *protocol.ExternalizedField) { f.ContentRef = "" }, protocol.ReasonProtocolError, false},
		{"size differs from the object", func(f *protocol.ExternalizedField) { f.TotalBytes = 299999 }, protocol.ReasonProtocolError, true},
		{"hash differs from the object", func(f *protocol.ExternalizedField) { f.SHA256 = sumOf(nil) }, protocol.ReasonProtocolError, true},
		{"unknown ref", func(f *protocol.ExternalizedField) { f.ContentRef = "content_000000000000000000000000" }, protocol.ReasonContentRefExpired, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := good
			tc.edit(&d)
			var reads atomic.Int32
			read := func(ctx context.Context, p protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
				reads.Add(1)
				return s.Read(&p)
			}
			_, err := Fetch(t.Context(), read, d)
			wantReason(t, err, tc.reason)
			if got := reads.Load() > 0; got != tc.reads {
				t.Errorf("read attempted = %v, want %v", got, tc.reads)
			}
		})
	}
}

// A host that lies consistently (pages agree with the descriptor, the
// bytes do not) is caught by the final hash.
func TestFetchConsistentLie(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	d := put(t, s.Lease(), pattern(300000)).Field("/payload")
	lie := sumOf([]byte("something else"))
	d.SHA256 = lie
	_, err := Fetch(t.Context(), storeReader(s, func(r *protocol.ContentReadResult) { r.SHA256 = lie }), d)
	wantReason(t, err, protocol.ReasonProtocolError)
}

func TestFetchReadErrorsAndCancel(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	d := put(t, s.Lease(), pattern(600000)).Field("/payload")

	boom := errors.New("connection lost")
	_, err := Fetch(t.Context(), func(context.Context, protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
		return nil, boom
	}, d)
	if !errors.Is(err, boom) {
		t.Errorf("read error = %v, want it returned as is", err)
	}
	_, err = Fetch(t.Context(), func(context.Context, protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
		return nil, nil
	}, d)
	wantReason(t, err, protocol.ReasonProtocolError)

	ctx, cancel := context.WithCancel(t.Context())
	_, err = Fetch(ctx, func(ctx context.Context, p protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
		cancel()
		return s.Read(&p)
	}, d)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fetch = %v", err)
	}
}

func TestResolveIncomingEnvelope(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	data := jsonString(70000)
	good := put(t, s.Lease(), data).Field("/payload")
	inline := json.RawMessage(`{"a":1}`)
	other := good
	other.JSONPointer = "/replacement"
	cases := []struct {
		name   string
		inline json.RawMessage
		ext    []protocol.ExternalizedField
		reason protocol.Reason
		want   []byte
	}{
		{"inline", inline, nil, "", inline},
		{"externalized", json.RawMessage("null"), []protocol.ExternalizedField{good}, "", data},
		{"inline and externalized", inline, []protocol.ExternalizedField{good}, protocol.ReasonProtocolError, nil},
		{"two descriptors", nil, []protocol.ExternalizedField{good, good}, protocol.ReasonProtocolError, nil},
		{"wrong pointer", nil, []protocol.ExternalizedField{other}, protocol.ReasonProtocolError, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var reads atomic.Int32
			read := func(ctx context.Context, p protocol.ContentReadParams) (*protocol.ContentReadResult, error) {
				reads.Add(1)
				return s.Read(&p)
			}
			got, err := ResolveIncoming(t.Context(), read, "/payload", tc.inline, tc.ext)
			wantReason(t, err, tc.reason)
			if err != nil && reads.Load() != 0 {
				t.Error("a read was attempted for a bad envelope")
			}
			if string(got) != string(tc.want) {
				t.Errorf("got %.40q, want %.40q", got, tc.want)
			}
		})
	}
}
