package contentref

import (
	"sync"
	"time"
)

// fakeClock is a Clock that moves only when told to; Advance runs the
// timers it passes, synchronously, in deadline order.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1700000000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// pending counts timers not yet fired or stopped.
func (c *fakeClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
	for {
		t := c.nextDue()
		if t == nil {
			return
		}
		t.f()
	}
}

func (c *fakeClock) nextDue() *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var due *fakeTimer
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) && (due == nil || t.at.Before(due.at)) {
			due = t
		}
	}
	if due != nil {
		due.stopped = true
	}
	return due
}
