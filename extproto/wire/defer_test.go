package wire

import (
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeRecorder records every physical write.
type writeRecorder struct {
	mu     sync.Mutex
	writes []string
	w      io.Writer
}

func (r *writeRecorder) Write(b []byte) (int, error) {
	r.mu.Lock()
	r.writes = append(r.writes, string(b))
	r.mu.Unlock()
	return r.w.Write(b)
}

func (r *writeRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

// TestDeferNotify: a deferred notification goes out ahead of the next
// frame, in the same physical write; with no next frame, the window's
// timer writes it alone; Close drains it; it holds an event slot until
// written; a negative window writes at once.
func TestDeferNotify(t *testing.T) {
	t.Parallel()
	const ev = `{"jsonrpc":"2.0","method":"ev","params":{"n":1}}` + "\n"
	t.Run("rides with the next frame", func(t *testing.T) {
		t.Parallel()
		inR, _ := pipe(t)
		outR, outW := pipe(t)
		rec := &writeRecorder{w: outW}
		c := New(inR, rec, Options{DeferWindow: time.Hour})
		defer c.Close()
		if err := c.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(testCtx(t), "next", nil); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4096)
		var got string
		for strings.Count(got, "\n") < 2 {
			n, err := outR.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got += string(buf[:n])
		}
		want := ev + `{"jsonrpc":"2.0","method":"next"}` + "\n"
		if w := rec.all(); got != want || len(w) != 1 || w[0] != want {
			t.Fatalf("read %q in writes %q, want %q in one write", got, w, want)
		}
	})
	t.Run("rides with a caller's inline write", func(t *testing.T) {
		t.Parallel()
		c, p := newRawPeer(t, Options{DeferWindow: time.Hour})
		if err := c.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if c.dq.pending.Load() != 1 {
			t.Fatal("the notification was not deferred")
		}
		done := make(chan error, 1)
		go func() { _, err := c.Call(testCtx(t), "m", nil); done <- err }()
		if got := p.recv(); got+"\n" != ev {
			t.Fatalf("first frame %s, want the deferred one", got)
		}
		if got := p.recv(); !strings.Contains(got, `"method":"m"`) {
			t.Fatalf("second frame %s, want the call", got)
		}
		p.send(`{"jsonrpc":"2.0","id":1,"result":null}`)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
	t.Run("the window writes it alone", func(t *testing.T) {
		t.Parallel()
		conn, peer := newRawPeer(t, Options{DeferWindow: time.Millisecond})
		if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if got := peer.recv(); got+"\n" != ev {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("close drains it", func(t *testing.T) {
		t.Parallel()
		conn, peer := newRawPeer(t, Options{DeferWindow: time.Hour})
		if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		if got := peer.recv(); got+"\n" != ev {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("holds an event slot until written", func(t *testing.T) {
		t.Parallel()
		conn, peer := newRawPeer(t, Options{DeferWindow: time.Hour, EventSlots: 1})
		if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if err := conn.DeferNotify("ev", nil); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("second: %v, want ErrQueueFull", err)
		}
		if err := conn.TryNotify("ev", nil); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("TryNotify: %v, want ErrQueueFull", err)
		}
		if err := conn.Notify(testCtx(t), "n", nil); err != nil { // its write carries it
			t.Fatal(err)
		}
		if got := peer.recv(); got+"\n" != ev {
			t.Fatalf("got %s", got)
		}
		if got := peer.recv(); got != `{"jsonrpc":"2.0","method":"n"}` {
			t.Fatalf("got %s", got)
		}
		if err := conn.DeferNotify("ev", nil); err != nil {
			t.Fatalf("after the write: %v", err)
		}
	})
	t.Run("a burst is written, not dropped", func(t *testing.T) {
		t.Parallel()
		// More events than slots, within one window, to a peer that
		// sends nothing: one waits at a time, the next writes both at
		// once, so the slots free up as they did with TryNotify.
		conn, peer := newRawPeer(t, Options{DeferWindow: time.Hour, EventSlots: 2})
		const burst = 10
		for i := range burst {
			if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
		}
		for i := range burst {
			if got := peer.recv(); got+"\n" != ev {
				t.Fatalf("event %d: got %s", i, got)
			}
		}
	})
	t.Run("negative window writes at once", func(t *testing.T) {
		t.Parallel()
		conn, peer := newRawPeer(t, Options{DeferWindow: -1})
		if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if conn.dq.pending.Load() != 0 {
			t.Fatal("deferred with a negative window")
		}
		if got := peer.recv(); got+"\n" != ev {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("a large frame is written after it", func(t *testing.T) {
		t.Parallel()
		conn, peer := newRawPeer(t, Options{DeferWindow: time.Hour})
		if err := conn.DeferNotify("ev", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		big := strings.Repeat("x", 2*writeChunk)
		if err := conn.Notify(testCtx(t), "big", map[string]string{"x": big}); err != nil {
			t.Fatal(err)
		}
		if got := peer.recv(); got+"\n" != ev {
			t.Fatalf("first frame %.80s, want the deferred one", got)
		}
		if got := peer.recv(); !strings.Contains(got, big) {
			t.Fatalf("second frame %.80s, want the big one", got)
		}
	})
}

// TestDeferNotifyAfterQueued: a frame queued before DeferNotify is
// written before the deferred one (the agent's first event used to
// overtake the handshake's initialized notification).
func TestDeferNotifyAfterQueued(t *testing.T) {
	t.Parallel()
	inR, _ := pipe(t)
	outR, outW := pipe(t)
	gw := &gateWriter{w: outW, entered: make(chan struct{}, 64), release: make(chan struct{})}
	c := New(inR, gw, Options{DeferWindow: time.Hour})
	defer c.Close()
	if err := c.Notify(testCtx(t), "first", nil); err != nil {
		t.Fatal(err)
	}
	<-gw.entered // being written
	if err := c.Notify(testCtx(t), "queued", nil); err != nil {
		t.Fatal(err)
	}
	if err := c.DeferNotify("deferred", nil); err != nil {
		t.Fatal(err)
	}
	close(gw.release)
	buf := make([]byte, 4096)
	var got string
	for strings.Count(got, "\n") < 3 {
		n, err := outR.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		got += string(buf[:n])
	}
	want := `{"jsonrpc":"2.0","method":"first"}` + "\n" + `{"jsonrpc":"2.0","method":"queued"}` + "\n" + `{"jsonrpc":"2.0","method":"deferred"}` + "\n"
	if got != want {
		t.Fatalf("order %q, want %q", got, want)
	}
}
