package contentref

import (
	"time"

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
	sum := hexSHA256(data)
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
