package sdk

import (
	"io"
	"sync"
)

// holdReader holds back the connection's first read until Serve has
// finished setting up. wire.New starts reading at once, and a frame read
// then could reach a handler before Serve has stored the connection and
// registered its Host (HostFrom would find nothing).
type holdReader struct {
	r       io.Reader
	open    chan struct{}
	once    sync.Once
	through bool // touched only by the reading goroutine
}

func newHoldReader(r io.Reader) *holdReader { return &holdReader{r: r, open: make(chan struct{})} }

// release lets reads through; it is idempotent.
func (h *holdReader) release() { h.once.Do(func() { close(h.open) }) }

// Read implements io.Reader.
func (h *holdReader) Read(p []byte) (int, error) {
	if !h.through {
		<-h.open
		h.through = true
	}
	return h.r.Read(p)
}

// Close closes the wrapped reader if it can, so that closing the
// connection still interrupts a blocked read.
func (h *holdReader) Close() error {
	if c, ok := h.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
