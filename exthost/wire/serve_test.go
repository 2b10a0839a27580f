package wire

import (
	"context"
	"encoding/json"
	"testing"
)

// TestSlowHandlerDoesNotBlockReader: while one handler waits, later
// requests are still read and answered.
func TestSlowHandlerDoesNotBlockReader(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	c, p := newRawPeer(t, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "block" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return params, nil
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	for i := 2; i < 6; i++ {
		p.roundTrip(i)
	}
	close(release)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":1,"result":null}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// TestHandlerCallsBack: a handler that calls the peer and waits for its
// answer (the SDK reading a content ref while serving an intercept) gets
// it: the answer needs a reader, so the handler's goroutine gives the
// reading role away.
func TestHandlerCallsBack(t *testing.T) {
	t.Parallel()
	host, _ := newPair(t, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		return json.RawMessage(`{"data":"from host"}`), nil
	}}, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		back, err := ConnFromContext(ctx).Call(ctx, "host/content/read", json.RawMessage(`{}`))
		if err != nil {
			return nil, err
		}
		return back, nil
	}})
	for range 50 {
		got, err := host.Call(testCtx(t), "extension/intercept", nil)
		if err != nil || string(got) != `{"data":"from host"}` {
			t.Fatalf("got %s, %v", got, err)
		}
	}
}

// TestManyConcurrentCalls: concurrent callers on both sides at once, with
// handlers that call back, all complete and match their answers.
func TestManyConcurrentCalls(t *testing.T) {
	t.Parallel()
	var a, b *Conn
	handler := func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "nested" {
			return ConnFromContext(ctx).Call(ctx, "echo", params)
		}
		return params, nil
	}
	a, b = newPair(t, Options{Handler: handler}, Options{Handler: handler})
	errs := make(chan error, 64)
	for g := range 32 {
		conn := a
		if g%2 == 1 {
			conn = b
		}
		go func() {
			for i := range 50 {
				want := json.RawMessage(`{"g":` + itoa(g) + `,"i":` + itoa(i) + `}`)
				method := "echo"
				if i%3 == 0 {
					method = "nested"
				}
				got, err := conn.Call(testCtx(t), method, want)
				if err == nil && string(got) != string(want) {
					err = &mismatch{got: string(got), want: string(want)}
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 32 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

type mismatch struct{ got, want string }

func (m *mismatch) Error() string { return "got " + m.got + ", want " + m.want }
