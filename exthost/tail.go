package exthost

import (
	"io"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/exthost/redact"
)

// tailBuffer keeps the last n bytes written to it: the sidecar's stderr,
// which is diagnostics only and shown (redacted) when the sidecar fails.
type tailBuffer struct {
	mu      sync.Mutex
	buf     []byte
	n       int
	dropped bool
	done    chan struct{}
}

func newTailBuffer(n int) *tailBuffer {
	return &tailBuffer{n: n, buf: make([]byte, 0, n), done: make(chan struct{})}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.n {
		t.buf = append(t.buf[:0], p[len(p)-t.n:]...)
		t.dropped = true
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.n; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.dropped = true
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

// drain copies r into the tail until EOF.
func (t *tailBuffer) drain(r io.ReadCloser) {
	defer close(t.done)
	defer r.Close()
	_, _ = io.Copy(t, r)
}

// String returns the tail, trimmed and redacted.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	s := string(t.buf)
	t.mu.Unlock()
	return redact.String(strings.TrimSpace(s))
}
