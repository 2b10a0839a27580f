// Package readgate holds back the first read of a connection's reader
// until the connection is fully built.
//
// It exists for one defect of exthost/wire: wire.New starts its read loop
// before it creates the notification queue, so a frame read at once
// races with that assignment (and a notification could be dropped). The
// SDK and its test host release the gate right after wire.New returns.
// It is to be deleted when wire.New is fixed.
package readgate

import (
	"io"
	"sync"
)

// Reader forwards to the wrapped reader once Release has been called.
type Reader struct {
	r       io.Reader
	open    chan struct{}
	once    sync.Once
	through bool // touched only by the single reading goroutine
}

// New wraps r; reads wait until Release.
func New(r io.Reader) *Reader { return &Reader{r: r, open: make(chan struct{})} }

// Release lets reads through. It is idempotent.
func (g *Reader) Release() { g.once.Do(func() { close(g.open) }) }

// Read implements io.Reader.
func (g *Reader) Read(p []byte) (int, error) {
	if !g.through {
		<-g.open
		g.through = true
	}
	return g.r.Read(p)
}

// Close closes the wrapped reader if it is an io.Closer, so that closing
// the connection still interrupts a blocked read.
func (g *Reader) Close() error {
	if c, ok := g.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
