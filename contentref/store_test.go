package contentref

import (
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

var refPattern = regexp.MustCompile(`^content_[0-9a-f]{24}$`)

func TestPutDescriptor(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	l := s.Lease()
	seen := map[string]bool{}
	for _, n := range []int{0, 1, 65537, 300000} {
		data := pattern(n)
		d := put(t, l, data)
		if !refPattern.MatchString(d.Ref) {
			t.Errorf("ref %q does not match %s", d.Ref, refPattern)
		}
		if seen[d.Ref] {
			t.Errorf("ref %q minted twice", d.Ref)
		}
		seen[d.Ref] = true
		if d.TotalBytes != int64(n) || d.SHA256 != sumOf(data) {
			t.Errorf("descriptor %+v, want %d bytes sha256 %s", d, n, sumOf(data))
		}
		got, gd, ok := s.Get(d.Ref)
		if !ok || gd != d {
			t.Fatalf("Get(%s) = %v %+v, want %+v", d.Ref, ok, gd, d)
		}
		mustEqual(t, got, data)
		if f := d.Field("/payload"); f != (extproto.ExternalizedField{JSONPointer: "/payload", ContentRef: d.Ref, TotalBytes: d.TotalBytes, SHA256: d.SHA256}) {
			t.Errorf("Field = %+v", f)
		}
	}
}

func TestPutObjectCap(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		opts   []Option
		size   int
		reason extproto.Reason
	}{
		{"exactly 8 MiB", nil, extproto.ContentRefObjectBytes, ""},
		{"8 MiB + 1", nil, extproto.ContentRefObjectBytes + 1, extproto.ReasonFrameTooLarge},
		{"exactly the byte bound", []Option{WithMaxBytes(4096)}, 4096, ""},
		{"over the byte bound alone", []Option{WithMaxBytes(4096)}, 4097, extproto.ReasonFrameTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore(tc.opts...)
			t.Cleanup(s.Close)
			_, err := s.Lease().Put(make([]byte, tc.size))
			wantReason(t, err, tc.reason)
			want := Stats{Objects: 1, Bytes: int64(tc.size)}
			if tc.reason != "" {
				want = Stats{}
			}
			if got := s.Stats(); got != want {
				t.Errorf("Stats = %+v, want %+v", got, want)
			}
		})
	}
}

func TestLeaseGraceAndExpiry(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		grace time.Duration
		want  time.Duration
	}{
		{"default grace", 0, DefaultGrace},
		{"configured grace", 250 * time.Millisecond, 250 * time.Millisecond},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newFakeClock()
			s := NewStore(WithClock(clk), WithGrace(tc.grace))
			t.Cleanup(s.Close)
			l := s.Lease()
			d := put(t, l, pattern(100))

			clk.Advance(time.Hour) // a live lease never expires
			if _, _, ok := s.Get(d.Ref); !ok {
				t.Fatal("ref of a live lease expired")
			}
			l.Release()
			l.Release()
			clk.Advance(tc.want - time.Nanosecond)
			if _, err := s.Read(&extproto.ContentReadParams{ContentRef: d.Ref}); err != nil {
				t.Fatalf("read inside the grace: %v", err)
			}
			if _, _, ok := s.Get(d.Ref); !ok {
				t.Fatal("Get inside the grace failed")
			}
			clk.Advance(time.Nanosecond)
			_, err := s.Read(&extproto.ContentReadParams{ContentRef: d.Ref})
			wantReason(t, err, extproto.ReasonContentRefExpired)
			if _, _, ok := s.Get(d.Ref); ok {
				t.Fatal("Get after the grace succeeded")
			}
			if got := s.Stats(); got != (Stats{}) {
				t.Errorf("Stats after expiry = %+v, want empty", got)
			}
		})
	}
}

// The sweep timer frees an idle connection's content without any access,
// and re-arms for leases released later.
func TestSweepTimerFreesIdleContent(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	s := NewStore(WithClock(clk), WithGrace(time.Second))
	t.Cleanup(s.Close)
	a, b, live := s.Lease(), s.Lease(), s.Lease()
	put(t, a, pattern(10))
	put(t, b, pattern(20))
	keep := put(t, live, pattern(40))
	a.Release()
	clk.Advance(500 * time.Millisecond)
	b.Release()
	clk.Advance(500 * time.Millisecond)
	if got, want := s.Stats(), (Stats{Objects: 2, Bytes: 60}); got != want {
		t.Fatalf("after a's grace: Stats = %+v, want %+v", got, want)
	}
	clk.Advance(500 * time.Millisecond)
	if got, want := s.Stats(), (Stats{Objects: 1, Bytes: 40}); got != want {
		t.Fatalf("after b's grace: Stats = %+v, want %+v", got, want)
	}
	if _, _, ok := s.Get(keep.Ref); !ok {
		t.Fatal("live lease's object was swept")
	}
	if n := clk.pending(); n != 0 {
		t.Errorf("%d sweep timers still armed with nothing to expire", n)
	}
}

func TestEviction(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		opts    []Option
		size    int
		puts    int
		evicted int
		want    Stats
	}{
		{"64 objects fit", nil, 10, 64, 0, Stats{64, 640}},
		{"the 65th evicts the oldest", nil, 10, 65, 1, Stats{64, 640}},
		{"70 evict the 6 oldest", nil, 10, 70, 6, Stats{64, 640}},
		{"configured object bound", []Option{WithMaxObjects(3)}, 10, 5, 2, Stats{3, 30}},
		{"byte bound evicts the oldest", []Option{WithMaxBytes(10 << 10)}, 4 << 10, 3, 1, Stats{2, 8 << 10}},
		{"byte bound, many small", []Option{WithMaxBytes(1000)}, 100, 25, 15, Stats{10, 1000}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := NewStore(tc.opts...)
			t.Cleanup(s.Close)
			l := s.Lease()
			refs := make([]string, tc.puts)
			for i := range refs {
				refs[i] = put(t, l, pattern(tc.size)).Ref
			}
			for i, ref := range refs {
				_, err := s.Read(&extproto.ContentReadParams{ContentRef: ref})
				if i < tc.evicted {
					wantReason(t, err, extproto.ReasonContentRefExpired)
				} else if err != nil {
					t.Errorf("object %d: %v", i, err)
				}
			}
			if got := s.Stats(); got != tc.want {
				t.Errorf("Stats = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Expired objects make room before a live one is evicted.
func TestExpiredGoBeforeLive(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	// A clock whose timers never fire leaves the sweep to Put.
	s := NewStore(WithClock(stuckClock{clk}), WithMaxObjects(2), WithGrace(time.Second))
	t.Cleanup(s.Close)
	live, done := s.Lease(), s.Lease()
	old := put(t, live, pattern(1))
	put(t, done, pattern(2))
	done.Release()
	clk.Advance(time.Second)
	if got := s.Stats().Objects; got != 2 {
		t.Fatalf("objects before the put = %d, want 2 (not swept yet)", got)
	}
	put(t, live, pattern(3))
	if _, _, ok := s.Get(old.Ref); !ok {
		t.Fatal("a live object was evicted while an expired one held room")
	}
}

type stuckClock struct{ *fakeClock }

func (stuckClock) AfterFunc(time.Duration, func()) func() bool { return func() bool { return true } }

func TestClose(t *testing.T) {
	t.Parallel()
	clk := newFakeClock()
	s := NewStore(WithClock(clk))
	l := s.Lease()
	d := put(t, l, pattern(10))
	l.Release()
	s.Close()
	s.Close()
	_, err := s.Read(&extproto.ContentReadParams{ContentRef: d.Ref})
	wantReason(t, err, extproto.ReasonContentRefExpired)
	_, err = s.Lease().Put(pattern(1))
	wantReason(t, err, extproto.ReasonContentRefExpired)
	if got := s.Stats(); got != (Stats{}) {
		t.Errorf("Stats after Close = %+v", got)
	}
	if n := clk.pending(); n != 0 {
		t.Errorf("%d sweep timers armed after Close", n)
	}
	l.Release()
}

func TestPutAfterRelease(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	l := s.Lease()
	l.Release()
	_, err := l.Put(pattern(1))
	wantReason(t, err, extproto.ReasonContentRefExpired)
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s := NewStore(WithGrace(time.Millisecond), WithMaxBytes(1<<20))
	t.Cleanup(s.Close)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				l := s.Lease()
				data := pattern(1000 + 997*g + i)
				d, err := l.Put(data)
				if err != nil {
					t.Error(err)
					return
				}
				got, err := Fetch(t.Context(), storeReader(s, nil), d.Field("/payload"))
				if err != nil && extproto.ReasonOf(err) != extproto.ReasonContentRefExpired {
					t.Error(fmt.Errorf("goroutine %d: %w", g, err))
				} else if err == nil && sumOf(got) != d.SHA256 {
					t.Errorf("goroutine %d: fetched the wrong bytes", g)
				}
				l.Release()
			}
		}()
	}
	wg.Wait()
	if st := s.Stats(); st.Objects > DefaultMaxObjects || st.Bytes > 1<<20 {
		t.Errorf("Stats %+v exceed the bounds", st)
	}
}

// TestPutSameBytesTwice: the host puts one payload twice in a row (a
// walk's intercept, then its post-walk event). Each Put is its own object
// under its own lease, with the same sum; a shorter view of the same
// array is a different object with its own sum.
func TestPutSameBytesTwice(t *testing.T) {
	t.Parallel()
	s := NewStore()
	t.Cleanup(s.Close)
	data := pattern(300000)
	l1, l2 := s.Lease(), s.Lease()
	d1 := put(t, l1, data)
	d2 := put(t, l2, data)
	d3 := put(t, l2, data[:len(data)-1])
	if d1.Ref == d2.Ref || d1.SHA256 != sumOf(data) || d2.SHA256 != d1.SHA256 {
		t.Fatalf("descriptors %+v and %+v, want distinct refs with sha256 %s", d1, d2, sumOf(data))
	}
	if d3.SHA256 != sumOf(data[:len(data)-1]) || d3.TotalBytes != int64(len(data)-1) {
		t.Fatalf("shorter view: %+v", d3)
	}
	l1.Release()
	for _, d := range []Descriptor{d1, d2, d3} {
		got, gd, ok := s.Get(d.Ref)
		if !ok || gd != d {
			t.Fatalf("Get(%s) = %v %+v", d.Ref, ok, gd)
		}
		mustEqual(t, got, data[:d.TotalBytes])
	}
}
