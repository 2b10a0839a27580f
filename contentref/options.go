package contentref

import (
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Defaults of a Store.
const (
	// DefaultGrace is how long a released lease's refs stay readable, so a
	// sidecar can finish paging content it was sent just before the call
	// ended (and an event's payload, whose call ends at once, can be read).
	DefaultGrace = 2 * time.Second
	// DefaultMaxObjects is the reference host's capacity: inserting the
	// 65th object evicts the oldest.
	DefaultMaxObjects = 64
	// DefaultMaxBytes bounds the bytes one store holds, so 64 objects of
	// 8 MiB cannot pin half a gigabyte per sidecar.
	DefaultMaxBytes = 64 << 20
)

// Clock is a Store's time source. Tests inject a fake one; the default is
// the system clock.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed. The
	// returned stop cancels a call that has not started.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// Option configures NewStore.
type Option func(*Store)

// WithGrace sets how long a released lease's refs stay readable. A
// non-positive d keeps DefaultGrace.
func WithGrace(d time.Duration) Option {
	return func(s *Store) {
		if d > 0 {
			s.grace = d
		}
	}
}

// WithMaxObjects bounds the number of objects held; the oldest are evicted
// first. A non-positive n keeps DefaultMaxObjects.
func WithMaxObjects(n int) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxObjects = n
		}
	}
}

// WithMaxBytes bounds the bytes held; the oldest objects are evicted to
// make room, and an object larger than n alone is refused with
// frame_too_large. A non-positive n keeps DefaultMaxBytes.
func WithMaxBytes(n int64) Option {
	return func(s *Store) {
		if n > 0 {
			s.maxBytes = n
		}
	}
}

// WithClock replaces the system clock. A nil c keeps the system clock.
func WithClock(c Clock) Option {
	return func(s *Store) {
		if c != nil {
			s.clock = c
		}
	}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// objectCap is the largest object a store configured with maxBytes holds.
func objectCap(maxBytes int64) int64 {
	return min(maxBytes, extproto.ContentRefObjectBytes)
}
