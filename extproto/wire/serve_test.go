package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
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

// TestInlineWriteHandsOverPartialFrame: a caller's own write attempt that
// times out part-way (the peer is not reading) leaves the frame to the
// writer, which completes it before anything else; the call still gets
// its answer once the peer reads.
func TestInlineWriteHandsOverPartialFrame(t *testing.T) {
	t.Parallel()
	inR, inW := pipe(t)
	outR, outW := pipe(t)
	handedOver := make(chan struct{}, 1)
	logger := slog.New(&signalHandler{msg: "wire: peer slow to read; the writer finishes a call frame", ch: handedOver})
	c := New(inR, outW, Options{Logger: logger})
	defer c.Close()
	if c.try == nil {
		t.Skip("no non-blocking pipe writes here")
	}
	big := json.RawMessage(`{"p":"` + strings.Repeat("b", 1<<20) + `"}`)
	ctx := testCtx(t) // cancellable: the non-blocking attempt
	type result struct {
		got json.RawMessage
		err error
	}
	res := make(chan result, 1)
	go func() {
		got, err := c.Call(ctx, "big", big)
		res <- result{got, err}
	}()
	<-handedOver // the caller's attempt wrote part of the frame and gave up
	notified := make(chan error, 1)
	go func() { notified <- c.Notify(ctx, "after", nil) }()
	br := bufio.NewReaderSize(outR, 4<<20)
	first, err := br.ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"big","params":` + string(big) + "}\n"; first != want {
		t.Fatalf("first frame is %d bytes, want the intact %d-byte call", len(first), len(want))
	}
	second, err := br.ReadString('\n')
	if err != nil || second != `{"jsonrpc":"2.0","method":"after"}`+"\n" {
		t.Fatalf("second frame %q, %v", second, err)
	}
	if err := <-notified; err != nil {
		t.Fatal(err)
	}
	inW.WriteString(`{"jsonrpc":"2.0","id":1,"result":"ok"}` + "\n")
	r := <-res
	if r.err != nil || string(r.got) != `"ok"` {
		t.Fatalf("call: %s %v", r.got, r.err)
	}
}

// signalHandler is a slog.Handler that signals when a given message is
// logged.
type signalHandler struct {
	msg string
	ch  chan struct{}
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *signalHandler) WithGroup(string) slog.Handler            { return h }
func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		select {
		case h.ch <- struct{}{}:
		default:
		}
	}
	return nil
}
