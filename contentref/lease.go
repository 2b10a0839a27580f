package contentref

import (
	"time"
	"unsafe"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Lease scopes refs to one call: Put stores objects under it and Release,
// when the call ends, starts their grace, after which they expire.
type Lease struct {
	store *Store
	// Guarded by store.mu.
	released bool
	deadline time.Time
}

// Lease starts a scope for one call's refs.
func (s *Store) Lease() *Lease { return &Lease{store: s} }

// Put stores data under l and returns its descriptor. The store keeps data
// itself: the caller must not modify it afterwards. An object over 8 MiB,
// or over the store's byte bound, fails with frame_too_large before
// anything is stored; a released lease or a closed store fails with
// content_ref_expired.
func (l *Lease) Put(data []byte) (Descriptor, error) {
	s := l.store
	if limit := objectCap(s.maxBytes); int64(len(data)) > limit {
		return Descriptor{}, extproto.Errorf(extproto.ReasonFrameTooLarge, "content object of %d bytes exceeds the %d-byte limit", len(data), limit)
	}
	sum, known := s.knownSum(data)
	if !known {
		sum = hexSHA256(data)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return Descriptor{}, extproto.NewError(extproto.ReasonContentRefExpired, "content store closed")
	case l.released:
		return Descriptor{}, extproto.NewError(extproto.ReasonContentRefExpired, "content lease already released")
	}
	return s.insertLocked(l, data, sum).descriptor(), nil
}

// knownSum is the SHA-256 of data when one of the newest live objects is
// the very same bytes (same array, same length): stored objects are never
// modified, so they still hash the same. The host puts the same payload
// twice in a row when a walk's intercept and its post-walk event to one
// sidecar both carry it; the second Put then costs no hash.
func (s *Store) knownSum(data []byte) (string, bool) {
	if len(data) == 0 {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.order) - 1; i >= 0 && i >= len(s.order)-4; i-- {
		if e := s.order[i]; len(e.data) == len(data) && unsafe.SliceData(e.data) == unsafe.SliceData(data) {
			return e.sum, true
		}
	}
	return "", false
}

// Release ends the call's scope: l's refs stay readable for the store's
// grace, then expire. Release is idempotent; a nil Lease releases nothing.
func (l *Lease) Release() {
	if l == nil {
		return // a payload that needed no lease
	}
	s := l.store
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.released {
		return
	}
	now := s.clock.Now()
	l.released, l.deadline = true, now.Add(s.grace)
	s.armLocked(now)
}
