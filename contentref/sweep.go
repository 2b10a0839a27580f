package contentref

import "time"

// The store frees expired objects lazily on every access and, so an idle
// connection does not pin its last call's content, with one timer armed
// for the earliest pending deadline.

// sweepLocked drops every expired object.
func (s *Store) sweepLocked(now time.Time) {
	kept := s.order[:0]
	for _, e := range s.order {
		if e.expired(now) {
			delete(s.byRef, e.ref)
			s.bytes -= int64(len(e.data))
			continue
		}
		kept = append(kept, e)
	}
	clear(s.order[len(kept):])
	s.order = kept
}

// armLocked arms the sweep timer for the earliest deadline of a released
// lease that still has objects, unless a timer is already armed: deadlines
// only grow, and each sweep re-arms for the next one.
func (s *Store) armLocked(now time.Time) {
	if s.closed || s.stopSweep != nil {
		return
	}
	var earliest time.Time
	for _, e := range s.order {
		if e.lease.released && (earliest.IsZero() || e.lease.deadline.Before(earliest)) {
			earliest = e.lease.deadline
		}
	}
	if earliest.IsZero() {
		return
	}
	s.stopSweep = s.clock.AfterFunc(max(earliest.Sub(now), 0), s.sweepTick)
}

func (s *Store) sweepTick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopSweep = nil
	if s.closed {
		return
	}
	now := s.clock.Now()
	s.sweepLocked(now)
	s.armLocked(now)
}
