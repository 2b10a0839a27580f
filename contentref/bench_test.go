package contentref

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"testing"
	"time"
)

const benchBytes = 4 << 20

// BenchmarkContentRead4MiB compares a 4 MiB object put into a store (the
// host's hash), paged out through Store.Read (base64 encode) and fetched
// (base64 decode, the sidecar's hash, every check) with the floor: one
// sha256 plus one base64 encode and decode of the same bytes into reused
// buffers. "ratio" interleaves the two in one loop and reports
// fetch/baseline in wall time and in process CPU time (which holds on a
// loaded machine): the figures docs/PERFORMANCE.md quotes.
func BenchmarkContentRead4MiB(b *testing.B) {
	data := pattern(benchBytes)
	base := newBaseline()
	s := NewStore()
	defer s.Close()
	read := storeReader(s, nil)
	ctx := context.Background()

	b.Run("baseline", func(b *testing.B) {
		b.SetBytes(benchBytes)
		b.ReportAllocs()
		for b.Loop() {
			base.run(b, data)
		}
	})
	b.Run("fetch", func(b *testing.B) {
		b.SetBytes(benchBytes)
		b.ReportAllocs()
		for b.Loop() {
			fetchOnce(b, ctx, s, read, data)
		}
	})
	b.Run("ratio", func(b *testing.B) {
		var wallBase, wallFetch, cpuBase, cpuFetch time.Duration
		for b.Loop() {
			t0, c0 := time.Now(), cpuNow()
			base.run(b, data)
			t1, c1 := time.Now(), cpuNow()
			fetchOnce(b, ctx, s, read, data)
			t2, c2 := time.Now(), cpuNow()
			wallBase, wallFetch = wallBase+t1.Sub(t0), wallFetch+t2.Sub(t1)
			cpuBase, cpuFetch = cpuBase+c1-c0, cpuFetch+c2-c1
		}
		b.ReportMetric(float64(wallFetch)/float64(wallBase), "fetch/baseline")
		if cpuBase > 0 {
			b.ReportMetric(float64(cpuFetch)/float64(cpuBase), "cpu-fetch/baseline")
			b.ReportMetric(float64(cpuFetch.Microseconds())/float64(b.N), "fetch-cpu-µs/op")
			b.ReportMetric(float64(cpuBase.Microseconds())/float64(b.N), "baseline-cpu-µs/op")
		}
	})
}

func cpuNow() time.Duration {
	d, _ := processCPU()
	return d
}

// benchSink keeps the baseline's hash from being optimized away.
var benchSink [sha256.Size]byte

type baseline struct{ enc, dec []byte }

func newBaseline() *baseline {
	return &baseline{enc: make([]byte, base64.StdEncoding.EncodedLen(benchBytes)), dec: make([]byte, benchBytes)}
}

func (x *baseline) run(b *testing.B, data []byte) {
	sum := sha256.Sum256(data)
	base64.StdEncoding.Encode(x.enc, data)
	n, err := base64.StdEncoding.Decode(x.dec, x.enc)
	if err != nil || n != len(data) {
		b.Fatal("baseline decode failed")
	}
	benchSink = sum
}

func fetchOnce(b *testing.B, ctx context.Context, s *Store, read ReadFunc, data []byte) {
	l := s.Lease()
	d, err := l.Put(data)
	if err != nil {
		b.Fatal(err)
	}
	got, err := Fetch(ctx, read, d.Field("/payload"))
	l.Release()
	if err != nil || len(got) != len(data) {
		b.Fatalf("fetch: %d bytes, %v", len(got), err)
	}
}
