package tools

import (
	"fmt"
	"strings"
	"sync"
)

// capture keeps the first and the last half of everything written to it,
// up to limit bytes in all: the head shows how a command started, the tail
// how it ended, which is where errors and summaries are.
type capture struct {
	mu    sync.Mutex
	limit int
	head  []byte
	tail  []byte // ring of the last limit/2 bytes once head is full
	next  int    // ring write position
	total int64
}

func newCapture(limit int) *capture { return &capture{limit: limit} }

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	c.total += int64(n)
	half := c.limit / 2
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 {
		if len(c.tail) < c.limit-half {
			k := min(c.limit-half-len(c.tail), len(p))
			c.tail = append(c.tail, p[:k]...)
			p = p[k:]
			continue
		}
		k := copy(c.tail[c.next:], p)
		c.next = (c.next + k) % len(c.tail)
		p = p[k:]
	}
	return n, nil
}

// String returns the captured text with a marker where bytes were left
// out.
func (c *capture) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	b.Write(c.head)
	kept := int64(len(c.head) + len(c.tail))
	if dropped := c.total - kept; dropped > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes of output left out ...]\n", dropped)
	}
	b.Write(c.tail[c.next:])
	b.Write(c.tail[:c.next])
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}
