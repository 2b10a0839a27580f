package exthost

import (
	"io"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// tailBuffer keeps the last n bytes written to it: the sidecar's stderr,
// which is diagnostics only and shown (redacted) when the sidecar fails.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	n   int
	// partial is set when the oldest kept line lost its beginning: the
	// last byte dropped was not a newline.
	partial bool
	done    chan struct{}
}

func newTailBuffer(n int) *tailBuffer {
	return &tailBuffer{n: n, buf: make([]byte, 0, n), done: make(chan struct{})}
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= t.n {
		switch {
		case len(p) > t.n:
			t.partial = p[len(p)-t.n-1] != '\n'
		case len(t.buf) > 0:
			t.partial = t.buf[len(t.buf)-1] != '\n'
		}
		t.buf = append(t.buf[:0], p[len(p)-t.n:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.n; over > 0 {
		t.partial = t.buf[over-1] != '\n'
		t.buf = append(t.buf[:0], t.buf[over:]...)
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

// String returns the tail, trimmed and redacted. It starts at a line
// boundary: a first line that lost its beginning is left out, since it
// is cut at an arbitrary byte, which could be just after "password=",
// where the value no longer looks like one.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	s := string(t.buf)
	if t.partial {
		_, s, _ = strings.Cut(s, "\n")
	}
	t.mu.Unlock()
	return redact.String(strings.TrimSpace(s))
}

// oneLine makes s one line of at most limit bytes: line breaks and tabs
// become spaces, runs of spaces one, and a longer text is cut at a rune
// boundary with "…". Errors that are repeated (every call to a crashed
// sidecar, every warning) stay short this way; details go elsewhere.
func oneLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	cut := max(limit-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
