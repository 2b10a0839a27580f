package contentref

import (
	"sync"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Store holds the content one sidecar connection may read: the bytes the
// host externalized for it, each under the Lease of the call that made
// them. It is safe for concurrent use. Close it when the connection ends;
// its refs die with it.
type Store struct {
	grace      time.Duration
	maxObjects int
	maxBytes   int64
	clock      Clock

	mu        sync.Mutex
	closed    bool
	byRef     map[string]*entry
	order     []*entry // insertion order, oldest first
	bytes     int64
	stopSweep func() bool // the armed sweep timer, nil when none
}

// entry is one stored object. Its fields never change after insertion, so
// readers may use data and sum after dropping the lock.
type entry struct {
	ref   string
	data  []byte
	sum   string // lowercase hex SHA-256 of data
	lease *Lease
}

// Descriptor names a stored object: its ref, size and lowercase hex
// SHA-256.
type Descriptor struct {
	Ref        string
	TotalBytes int64
	SHA256     string
}

// Field is the wire descriptor of d for the field at pointer.
func (d Descriptor) Field(pointer string) extproto.ExternalizedField {
	return extproto.ExternalizedField{JSONPointer: pointer, ContentRef: d.Ref, TotalBytes: d.TotalBytes, SHA256: d.SHA256}
}

func (e *entry) descriptor() Descriptor {
	return Descriptor{Ref: e.ref, TotalBytes: int64(len(e.data)), SHA256: e.sum}
}

// Stats is a snapshot of what a store holds.
type Stats struct {
	Objects int
	Bytes   int64
}

// NewStore returns an empty store with the defaults unless opts say
// otherwise.
func NewStore(opts ...Option) *Store {
	s := &Store{
		grace:      DefaultGrace,
		maxObjects: DefaultMaxObjects,
		maxBytes:   DefaultMaxBytes,
		clock:      systemClock{},
		byRef:      make(map[string]*entry),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Get returns the bytes, and their descriptor, of a live ref. The bytes
// are shared with the store and must not be modified.
func (s *Store) Get(ref string) ([]byte, Descriptor, bool) {
	e := s.lookup(ref)
	if e == nil {
		return nil, Descriptor{}, false
	}
	return e.data[:len(e.data):len(e.data)], e.descriptor(), true
}

// Stats reports what the store holds now, expired objects not yet swept
// included.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Objects: len(s.order), Bytes: s.bytes}
}

// Close drops every object; later reads fail with content_ref_expired and
// later puts fail. Close is idempotent.
func (s *Store) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.stopSweep != nil {
		s.stopSweep()
		s.stopSweep = nil
	}
	clear(s.byRef)
	clear(s.order)
	s.order = nil
	s.bytes = 0
}

// lookup returns the live entry of ref, or nil when it is unknown,
// evicted or expired.
func (s *Store) lookup(ref string) *entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byRef[ref]
	if e == nil {
		return nil
	}
	if e.expired(s.clock.Now()) {
		s.removeLocked(e)
		return nil
	}
	return e
}

func (e *entry) expired(now time.Time) bool {
	return e.lease.released && !now.Before(e.lease.deadline)
}

// insertLocked stores data under l, first dropping expired objects and
// then the oldest ones until the bounds hold with data added.
func (s *Store) insertLocked(l *Lease, data []byte, sum string) *entry {
	s.sweepLocked(s.clock.Now())
	size := int64(len(data))
	for len(s.order) > 0 && (len(s.order) >= s.maxObjects || s.bytes+size > s.maxBytes) {
		s.removeLocked(s.order[0])
	}
	e := &entry{ref: s.mintLocked(), data: data, sum: sum, lease: l}
	s.byRef[e.ref] = e
	s.order = append(s.order, e)
	s.bytes += size
	return e
}

// mintLocked returns a ref no live object has.
func (s *Store) mintLocked() string {
	for {
		ref := newRef()
		if _, taken := s.byRef[ref]; !taken {
			return ref
		}
	}
}

func (s *Store) removeLocked(e *entry) {
	for i, o := range s.order {
		if o == e {
			copy(s.order[i:], s.order[i+1:])
			s.order[len(s.order)-1] = nil
			s.order = s.order[:len(s.order)-1]
			break
		}
	}
	delete(s.byRef, e.ref)
	s.bytes -= int64(len(e.data))
}
