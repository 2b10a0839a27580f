package contentref

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// pattern returns n deterministic bytes. The 251-byte period is prime,
// so no two pages of an object are alike.
func pattern(n int) []byte {
	var cycle [251]byte
	for i := range cycle {
		cycle[i] = byte('a' + i%26)
	}
	return bytes.Repeat(cycle[:], n/len(cycle)+1)[:n]
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func wantReason(t *testing.T, err error, want extproto.Reason) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if got := extproto.ReasonOf(err); got != want {
		t.Fatalf("error %v: reason %q, want %q", err, got, want)
	}
	var pe *extproto.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *extproto.Error", err)
	}
	if info, _ := want.Info(); pe.Code != info.Code || pe.Retryable != info.Retryable {
		t.Fatalf("error %v: code %d retryable %v, want the table's %d %v", err, pe.Code, pe.Retryable, info.Code, info.Retryable)
	}
}

// storeReader adapts s.Read to a ReadFunc, optionally rewriting pages.
func storeReader(s *Store, tamper func(*extproto.ContentReadResult)) ReadFunc {
	return func(_ context.Context, p extproto.ContentReadParams) (*extproto.ContentReadResult, error) {
		r, err := s.Read(&p)
		if err == nil && tamper != nil {
			tamper(r)
		}
		return r, err
	}
}

func put(t *testing.T, l *Lease, data []byte) Descriptor {
	t.Helper()
	d, err := l.Put(data)
	if err != nil {
		t.Fatalf("Put(%d bytes): %v", len(data), err)
	}
	return d
}

func mustEqual(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes (sha256 %s), want %d bytes (sha256 %s)", len(got), sumOf(got), len(want), sumOf(want))
	}
}
