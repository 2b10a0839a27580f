package agent

import (
	"context"
	"sync"
)

// turnGate counts running agent turns so a reload can wait until every
// session is idle.
type turnGate struct {
	mu     sync.Mutex
	n      int
	idleCh chan struct{} // closed while n == 0
}

func (g *turnGate) init() {
	g.idleCh = make(chan struct{})
	close(g.idleCh)
}

func (g *turnGate) begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.idleCh = make(chan struct{})
	}
	g.n++
}

func (g *turnGate) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.n == 0 {
		close(g.idleCh)
	}
}

// idle waits until no turn runs.
func (g *turnGate) idle(ctx context.Context) error {
	for {
		g.mu.Lock()
		ch, n := g.idleCh, g.n
		g.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// busy reports whether a turn runs.
func (g *turnGate) busy() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n > 0
}
