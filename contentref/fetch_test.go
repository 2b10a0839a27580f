package contentref

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestFetchSizes(t *testing.T) {
	t.Parallel()
	const chunk = extproto.ContentRefChunkBytes
	for _, n := range []int{0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, extproto.ContentRefObjectBytes} {
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
	wire, err := json.Marshal(extproto.InterceptParams{Event: "input.receive", Seq: 1, Payload: field, Externalized: ext})
	if err != nil {
		t.Fatal(err)
	}
	var in extproto.InterceptParams
	if err := json.Unmarshal(wire, &in); err != nil {
		t.Fatal(err)
	}
	var reads atomic.Int32
	read := func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		reads.Add(1)
		r, err := s.Read(&p)
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(r) // through the wire shape, as a sidecar sees it
		var out extproto.ContentReadResult
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
	back, err := Resolve(s, "/replacement", json.RawMessage("null"), []extproto.ExternalizedField{echo})
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
		tamper func(r *extproto.ContentReadResult)
		reason extproto.Reason
	}{
		{"untouched", func(*extproto.ContentReadResult) {}, ""},
		{"uppercase page sha256", func(r *extproto.ContentReadResult) { r.SHA256 = strings.ToUpper(r.SHA256) }, ""},
		{"wrong echoed offset", onPage(1, func(r *extproto.ContentReadResult) { r.Offset++ }), extproto.ReasonProtocolError},
		{"wrong echoed ref", onPage(0, func(r *extproto.ContentReadResult) { r.ContentRef = "content_000000000000000000000000" }), extproto.ReasonProtocolError},
		{"wrong encoding", onPage(2, func(r *extproto.ContentReadResult) { r.Encoding = "base64" }), extproto.ReasonProtocolError},
		{"page totalBytes differs", onPage(1, func(r *extproto.ContentReadResult) { r.TotalBytes++ }), extproto.ReasonProtocolError},
		{"page totalBytes over 8 MiB", onPage(0, func(r *extproto.ContentReadResult) { r.TotalBytes = extproto.ContentRefObjectBytes + 1 }), extproto.ReasonFrameTooLarge},
		{"page sha256 differs", onPage(2, func(r *extproto.ContentReadResult) { r.SHA256 = sumOf(nil) }), extproto.ReasonProtocolError},
		{"page sha256 malformed", onPage(0, func(r *extproto.ContentReadResult) { r.SHA256 = "sha256:" + r.SHA256[7:] }), extproto.ReasonProtocolError},
		{"non-advancing nextOffset", onPage(0, func(r *extproto.ContentReadResult) { r.NextOffset = next(0) }), extproto.ReasonProtocolError},
		{"nextOffset skips ahead", onPage(0, func(r *extproto.ContentReadResult) { *r.NextOffset += 1 }), extproto.ReasonProtocolError},
		{"nextOffset missing mid-object", onPage(1, func(r *extproto.ContentReadResult) { r.NextOffset = nil }), extproto.ReasonProtocolError},
		{"nextOffset on the last page", onPage(2, func(r *extproto.ContentReadResult) { r.NextOffset = next(size) }), extproto.ReasonProtocolError},
		{"short page", onPage(0, func(r *extproto.ContentReadResult) { r.DataBase64 = r.DataBase64[:len(r.DataBase64)-4] }), extproto.ReasonProtocolError},
		{"empty page mid-object", onPage(1, func(r *extproto.ContentReadResult) { r.DataBase64 = ""; r.NextOffset = next(r.Offset) }), extproto.ReasonProtocolError},
		{"oversize chunk", onPage(0, func(r *extproto.ContentReadResult) {
			r.DataBase64 = base64.StdEncoding.EncodeToString(pattern(extproto.ContentRefChunkBytes + 1))
			r.NextOffset = next(extproto.ContentRefChunkBytes + 1)
		}), extproto.ReasonProtocolError},
		{"unpadded base64", onPage(2, func(r *extproto.ContentReadResult) { r.DataBase64 = strings.TrimRight(r.DataBase64, "=") }), extproto.ReasonProtocolError},
		{"url-safe alphabet", onPage(0, func(r *extproto.ContentReadResult) { r.DataBase64 = "-_" + r.DataBase64[2:] }), extproto.ReasonProtocolError},
		{"line breaks", onPage(0, func(r *extproto.ContentReadResult) { r.DataBase64 = "\n\n\n\n" + r.DataBase64[:len(r.DataBase64)-4] }), extproto.ReasonProtocolError},
		{"non-canonical padding bits", onPage(2, func(r *extproto.ContentReadResult) {
			r.DataBase64 = r.DataBase64[:len(r.DataBase64)-4] + "QR=="
		}), extproto.ReasonProtocolError},
		{"flipped data byte", onPage(1, func(r *extproto.ContentReadResult) {
			b, _ := base64.StdEncoding.DecodeString(r.DataBase64)
			b[100] ^= 1
			r.DataBase64 = base64.StdEncoding.EncodeToString(b)
		}), extproto.ReasonProtocolError},
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
func onPage(i int64, f func(*extproto.ContentReadResult)) func(*extproto.ContentReadResult) {
	return func(r *extproto.ContentReadResult) {
		if r.Offset == i*extproto.ContentRefChunkBytes {
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
		edit   func(*extproto.ExternalizedField)
		reason extproto.Reason
		reads  bool
	}{
		{"good", func(*extproto.ExternalizedField) {}, "", true},
		{"uppercase sha256", func(f *extproto.ExternalizedField) { f.SHA256 = strings.ToUpper(f.SHA256) }, "", true},
		{"over 8 MiB", func(f *extproto.ExternalizedField) { f.TotalBytes = extproto.ContentRefObjectBytes + 1 }, extproto.ReasonFrameTooLarge, false},
		{"negative size", func(f *extproto.ExternalizedField) { f.TotalBytes = -1 }, extproto.ReasonProtocolError, false},
		{"malformed sha256", func(f *extproto.ExternalizedField) { f.SHA256 = "zz" + f.SHA256[2:] }, extproto.ReasonProtocolError, false},
		{"blank ref", func(f *extproto.ExternalizedField) { f.ContentRef = "" }, extproto.ReasonProtocolError, false},
		{"size differs from the object", func(f *extproto.ExternalizedField) { f.TotalBytes = 299999 }, extproto.ReasonProtocolError, true},
		{"hash differs from the object", func(f *extproto.ExternalizedField) { f.SHA256 = sumOf(nil) }, extproto.ReasonProtocolError, true},
		{"unknown ref", func(f *extproto.ExternalizedField) { f.ContentRef = "content_000000000000000000000000" }, extproto.ReasonContentRefExpired, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := good
			tc.edit(&d)
			var reads atomic.Int32
			read := func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
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
	_, err := Fetch(t.Context(), storeReader(s, func(r *extproto.ContentReadResult) { r.SHA256 = lie }), d)
	wantReason(t, err, extproto.ReasonProtocolError)
}

func TestFetchReadErrorsAndCancel(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	d := put(t, s.Lease(), pattern(600000)).Field("/payload")

	boom := errors.New("connection lost")
	_, err := Fetch(t.Context(), func(context.Context, extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		return nil, boom
	}, d)
	if !errors.Is(err, boom) {
		t.Errorf("read error = %v, want it returned as is", err)
	}
	_, err = Fetch(t.Context(), func(context.Context, extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		return nil, nil
	}, d)
	wantReason(t, err, extproto.ReasonProtocolError)

	ctx, cancel := context.WithCancel(t.Context())
	_, err = Fetch(ctx, func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
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
		ext    []extproto.ExternalizedField
		reason extproto.Reason
		want   []byte
	}{
		{"inline", inline, nil, "", inline},
		{"externalized", json.RawMessage("null"), []extproto.ExternalizedField{good}, "", data},
		{"inline and externalized", inline, []extproto.ExternalizedField{good}, extproto.ReasonProtocolError, nil},
		{"two descriptors", nil, []extproto.ExternalizedField{good, good}, extproto.ReasonProtocolError, nil},
		{"wrong pointer", nil, []extproto.ExternalizedField{other}, extproto.ReasonProtocolError, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var reads atomic.Int32
			read := func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
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

// The next page is asked for before the current one is decoded, and Fetch
// never returns with a read still running: a bad first page fails the
// fetch only after the read ahead (which waits for its context) ended.
func TestFetchReadsAhead(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	d := put(t, s.Lease(), pattern(600000)).Field("/payload")
	var aheadAsked, aheadEnded atomic.Bool
	_, err := Fetch(t.Context(), func(ctx context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		if p.Offset == 0 {
			r, err := s.Read(&p)
			if err == nil {
				r.DataBase64 = "!" + r.DataBase64[1:] // not base64: the decode fails
			}
			return r, err
		}
		aheadAsked.Store(true)
		defer aheadEnded.Store(true)
		<-ctx.Done()
		return nil, ctx.Err()
	}, d)
	wantReason(t, err, extproto.ReasonProtocolError)
	if !aheadAsked.Load() {
		t.Error("the next page was not asked for before the first was decoded")
	}
	if !aheadEnded.Load() {
		t.Error("Fetch returned with a read still in flight")
	}

	// A whole object, read ahead page by page, is still exact.
	data := pattern(1 << 20)
	d = put(t, s.Lease(), data).Field("/payload")
	var inFlight, most atomic.Int32
	got, err := Fetch(t.Context(), func(_ context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		return s.Read(&p)
	}, d)
	if err != nil {
		t.Fatal(err)
	}
	mustEqual(t, got, data)
	if most.Load() > 2 {
		t.Errorf("%d reads in flight at once, want at most 2", most.Load())
	}
}
