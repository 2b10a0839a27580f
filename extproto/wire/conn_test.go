package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestCallRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := newPair(t, Options{}, Options{Handler: echo})
	ctx := testCtx(t)
	for i := range 3 {
		got, err := c.Call(ctx, "echo", json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(`{"n":%d}`, i); string(got) != want {
			t.Fatalf("result %s, want %s", got, want)
		}
	}
	got, err := c.Call(ctx, "echo", struct {
		A string `json:"a"`
	}{"<&>"})
	if err != nil || string(got) != `{"a":"<&>"}` {
		t.Fatalf("struct params: %s, %v", got, err)
	}
	got, err = c.Call(ctx, "echo", nil)
	if err != nil || string(got) != "null" {
		t.Fatalf("nil params: %s, %v", got, err)
	}
}

// TestOutboundEncoding pins the exact bytes: member order, integer ids
// from 1, HTML not escaped, params omitted when nil.
func TestOutboundEncoding(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{})
	ctx := testCtx(t)
	type params struct {
		Text string `json:"text"`
	}
	go c.Call(ctx, "a/b", params{"<x> & \u2028"})
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":1,"method":"a/b","params":{"text":"<x> & \u2028"}}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	go c.Call(ctx, "n", nil)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":2,"method":"n"}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if err := c.Notify(ctx, "ev", json.RawMessage("{\n \"a\": 1\n}")); err != nil {
		t.Fatal(err)
	}
	if got, want := p.recv(), `{"jsonrpc":"2.0","method":"ev","params":{"a":1}}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if err := c.TryNotify("ev", json.RawMessage(`{"b":"<"}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := p.recv(), `{"jsonrpc":"2.0","method":"ev","params":{"b":"<"}}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestParamsMustBeObject(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: echo})
	ctx := testCtx(t)
	for _, params := range []any{[]int{1}, 5, "x", json.RawMessage(`[1]`), (*struct{})(nil)} {
		if _, err := c.Call(ctx, "m", params); !errors.Is(err, errParamsNotObject) {
			t.Errorf("params %#v: err %v", params, err)
		}
		if err := c.Notify(ctx, "m", params); !errors.Is(err, errParamsNotObject) {
			t.Errorf("notify params %#v: err %v", params, err)
		}
	}
	if _, err := c.Call(ctx, "m", json.RawMessage(`{"a":`)); err == nil {
		t.Error("invalid raw params accepted")
	}
	p.roundTrip(1) // nothing was written before the answer to this
}

func TestRemoteErrors(t *testing.T) {
	t.Parallel()
	c, _ := newPair(t, Options{}, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		switch method {
		case "expired":
			return nil, extproto.NewError(extproto.ReasonContentRefExpired, "")
		case "custom":
			return nil, extproto.Errorf(extproto.ReasonInvalidParams, "bad field %s", "/a")
		case "unstructured":
			return nil, &extproto.Error{Code: extproto.CodeMethodNotFound, Message: "method not found: unstructured"}
		case "plain":
			return nil, errors.New("secret local detail")
		case "panic":
			panic("boom")
		case "unencodable":
			return func() {}, nil
		}
		return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
	}})
	ctx := testCtx(t)
	cases := []struct {
		method, msg string
		reason      extproto.Reason
		code        int
		retryable   bool
	}{
		{"expired", "The referenced content has expired.", extproto.ReasonContentRefExpired, -32000, true},
		{"custom", "bad field /a", extproto.ReasonInvalidParams, -32602, false},
		{"unstructured", "method not found: unstructured", "", -32601, false},
		{"plain", "An internal extension protocol error occurred.", extproto.ReasonInternal, -32603, true},
		{"panic", "An internal extension protocol error occurred.", extproto.ReasonInternal, -32603, true},
		{"unencodable", "An internal extension protocol error occurred.", extproto.ReasonInternal, -32603, true},
		{"nope", "method not found: nope", extproto.ReasonUnknownMethod, -32601, false},
	}
	for _, tc := range cases {
		_, err := c.Call(ctx, tc.method, nil)
		var pe *extproto.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v is not a *extproto.Error", tc.method, err)
		}
		if pe.Reason != tc.reason || pe.Code != tc.code || pe.Retryable != tc.retryable || pe.Message != tc.msg {
			t.Errorf("%s: got %+v", tc.method, *pe)
		}
	}
	// The panic did not take the connection down.
	if _, err := c.Call(ctx, "expired", nil); !errors.Is(err, extproto.ErrContentRefExpired) {
		t.Fatal(err)
	}
}

func TestNilHandlerAnswersUnknownMethod(t *testing.T) {
	t.Parallel()
	_, p := newRawPeer(t, Options{})
	p.send(`{"jsonrpc":"2.0","id":4,"method":"x/y"}`)
	want := `{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"method not found: x/y","data":{"reason":"unknown_method","retryable":false}}}`
	if got := p.recv(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestPanicRecoveredFrame(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: func(context.Context, string, json.RawMessage) (any, error) { panic("x") }})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"m"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"An internal extension protocol error occurred.","data":{"reason":"internal","retryable":true}}}`
	if got := p.recv(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

func TestCallCancellation(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var mu sync.Mutex
	var unmatched []UnmatchedResponse
	late := make(chan struct{})
	c, _ := newPair(t, Options{OnUnmatched: func(u UnmatchedResponse) {
		mu.Lock()
		unmatched = append(unmatched, u)
		mu.Unlock()
		close(late)
	}}, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "slow" {
			started <- struct{}{}
			<-release
		}
		return "ok", nil
	}})
	ctx, cancel := context.WithCancel(testCtx(t))
	errc := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, "slow", nil)
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	// Only that call failed.
	if got, err := c.Call(testCtx(t), "fast", nil); err != nil || string(got) != `"ok"` {
		t.Fatalf("after cancel: %s %v", got, err)
	}
	close(release)
	<-late
	mu.Lock()
	defer mu.Unlock()
	if len(unmatched) != 1 || unmatched[0].ID != 1 || !unmatched[0].Late || unmatched[0].Null || unmatched[0].Err != nil {
		t.Fatalf("unmatched: %+v", unmatched)
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// gateWriter blocks every Write until released, so a test can hold the
// writer inside a physical write.
type gateWriter struct {
	w       io.WriteCloser
	entered chan struct{}
	release chan struct{}
}

func (g *gateWriter) Write(b []byte) (int, error) {
	g.entered <- struct{}{}
	<-g.release
	return g.w.Write(b)
}

func (g *gateWriter) Close() error { return g.w.Close() }

// TestCancelDropsUnstartedFrame: a frame whose call is cancelled before
// the writer started it is never written; a frame whose write started is
// written whole even though its call was cancelled.
func TestCancelDropsUnstartedFrame(t *testing.T) {
	t.Parallel()
	inR, _ := pipe(t)
	outR, outW := pipe(t)
	gw := &gateWriter{w: outW, entered: make(chan struct{}, 8), release: make(chan struct{})}
	c := New(inR, gw, Options{})
	defer c.Close()

	ctxA, cancelA := context.WithCancel(testCtx(t))
	ctxB, cancelB := context.WithCancel(testCtx(t))
	errs := make(chan error, 2)
	go func() { _, err := c.Call(ctxA, "a", nil); errs <- err }()
	<-gw.entered // the writer is inside a's write
	go func() { _, err := c.Call(ctxB, "b", nil); errs <- err }()
	// Wait until b is pending (queued behind a).
	for {
		c.mu.Lock()
		n := len(c.pending)
		c.mu.Unlock()
		if n == 2 {
			break
		}
		runtime.Gosched()
	}
	cancelB()
	cancelA()
	for range 2 {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
	}
	close(gw.release)
	// a's frame completes; b's never appears. A notification after both
	// proves ordering: once it arrives, b would have been before it.
	if err := c.Notify(testCtx(t), "after", nil); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	for !strings.Contains(string(buf), `"after"`) {
		tmp := make([]byte, 256)
		n, err := outR.Read(tmp)
		if err != nil {
			t.Fatal(err)
		}
		buf = append(buf, tmp[:n]...)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","method":"after"}` + "\n"
	if string(buf) != want {
		t.Fatalf("written:\n%s\nwant:\n%s", buf, want)
	}
}

func TestClosePendingCalls(t *testing.T) {
	t.Parallel()
	started := make(chan struct{}, 4)
	c, _ := newPair(t, Options{}, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	errs := make(chan error, 3)
	for range 3 {
		go func() { _, err := c.Call(context.Background(), "hang", nil); errs <- err }()
	}
	for range 3 {
		<-started
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for range 3 {
		err := <-errs
		if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), `call "hang"`) {
			t.Fatalf("pending call: %v", err)
		}
	}
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatal(c.Err())
	}
	if _, err := c.Call(context.Background(), "after", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
	if err := c.Notify(context.Background(), "after", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("notify after close: %v", err)
	}
	if err := c.TryNotify("after", nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("trynotify after close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestPeerEOF: the peer closing its side ends the connection with an
// error wrapping io.EOF and fails pending calls.
func TestPeerEOF(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{})
	errc := make(chan error, 1)
	go func() { _, err := c.Call(context.Background(), "m", nil); errc <- err }()
	p.recv()
	p.w.Close()
	if err := waitDone(t, c); !errors.Is(err, io.EOF) {
		t.Fatalf("terminal error %v", err)
	}
	if err := <-errc; !errors.Is(err, io.EOF) {
		t.Fatalf("pending call: %v", err)
	}
}

func TestMalformedResponseFailsCall(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{})
	errc := make(chan error, 1)
	go func() { _, err := c.Call(testCtx(t), "m", nil); errc <- err }()
	p.recv()
	p.send(`{"jsonrpc":"2.0","id":1}`)
	if got := p.recv(); got != replyInvalidNull {
		t.Fatalf("reply %s", got)
	}
	err := <-errc
	if !errors.Is(err, extproto.ErrProtocol) || !strings.Contains(err.Error(), "malformed response") {
		t.Fatalf("call error: %v", err)
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

func TestUnmatchedResponses(t *testing.T) {
	t.Parallel()
	got := make(chan UnmatchedResponse, 4)
	c, p := newRawPeer(t, Options{Handler: echo, OnUnmatched: func(u UnmatchedResponse) { got <- u }})
	p.send(`{"jsonrpc":"2.0","id":99,"result":1}`)
	p.send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	p.send(`{"jsonrpc":"2.0","id":5,"error":{"code":-32000,"message":"The referenced content has expired.","data":{"reason":"content_ref_expired","retryable":true}}}`)
	u := <-got
	if u.ID != 99 || u.Null || u.Late || u.Err != nil {
		t.Fatalf("unknown id: %+v", u)
	}
	u = <-got
	if !u.Null || u.Err == nil || u.Err.Code != -32700 || u.Err.Reason != "" {
		t.Fatalf("null id: %+v", u)
	}
	u = <-got
	if u.ID != 5 || u.Late || !errors.Is(u.Err, extproto.ErrContentRefExpired) {
		t.Fatalf("unknown error id: %+v", u)
	}
	// No reply to any of them: the next frame the peer sees answers this.
	p.roundTrip(1)
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

func TestServerBusy(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	c, p := newRawPeer(t, Options{MaxHandlers: 2, Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "block" {
			started <- struct{}{}
			<-release
		}
		return params, nil
	}})
	p.send(`{"jsonrpc":"2.0","id":1,"method":"block"}`, `{"jsonrpc":"2.0","id":2,"method":"block"}`)
	<-started
	<-started
	p.send(`{"jsonrpc":"2.0","id":3,"method":"block"}`)
	if got, want := p.recv(), `{"jsonrpc":"2.0","id":3,"error":{"code":-32099,"message":"server busy"}}`; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	close(release)
	seen := map[string]bool{p.recv(): true, p.recv(): true}
	if !seen[`{"jsonrpc":"2.0","id":1,"result":null}`] || !seen[`{"jsonrpc":"2.0","id":2,"result":null}`] {
		t.Fatalf("answers %v", seen)
	}
	p.roundTrip(4)
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	notes := make(chan string, 4)
	gate := func(method string, notification bool) error {
		kind := "request"
		if notification {
			kind = "notification"
		}
		switch method {
		case "early":
			return extproto.Errorf(extproto.ReasonProtocolError, "sent %s %q before extension/initialized", kind, method)
		case "poison":
			return Fatal(extproto.Errorf(extproto.ReasonProtocolError, "sent %s %q before extension/initialized", kind, method))
		}
		return nil
	}
	c, p := newRawPeer(t, Options{Handler: echo, Gate: gate, NotifyHandler: func(ctx context.Context, method string, params json.RawMessage) {
		notes <- method
	}})
	// Refused request: answered with the gate's error, data included.
	p.send(`{"jsonrpc":"2.0","id":1,"method":"early"}`)
	want := `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"sent request \"early\" before extension/initialized","data":{"reason":"protocol_error","retryable":false}}}`
	if got := p.recv(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Refused notification: dropped; admitted ones are delivered.
	p.send(`{"jsonrpc":"2.0","method":"early"}`, `{"jsonrpc":"2.0","method":"fine"}`)
	if m := <-notes; m != "fine" {
		t.Fatalf("delivered %s", m)
	}
	p.roundTrip(2)
	// Fatal verdict: answered, then the connection ends with that error,
	// and nothing after it is served.
	p.send(`{"jsonrpc":"2.0","id":3,"method":"poison"}`, `{"jsonrpc":"2.0","id":4,"method":"echo"}`)
	want = `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"sent request \"poison\" before extension/initialized","data":{"reason":"protocol_error","retryable":false}}}`
	if got := p.recv(); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	err := waitDone(t, c)
	if !errors.Is(err, extproto.ErrProtocol) || !strings.Contains(err.Error(), `"poison"`) {
		t.Fatalf("terminal error %v", err)
	}
	<-p.eof
	p.expectNothing()
}

func TestGateFatalNotification(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Gate: func(method string, notification bool) error {
		return Fatal(extproto.Errorf(extproto.ReasonProtocolError, "sent notification %q before extension/initialized", method))
	}})
	p.send(`{"jsonrpc":"2.0","method":"extension/provider/stream/chunk","params":{}}`)
	err := waitDone(t, c)
	if !errors.Is(err, extproto.ErrProtocol) || !strings.Contains(err.Error(), "stream/chunk") {
		t.Fatalf("terminal error %v", err)
	}
	<-p.eof
	p.expectNothing()
}

func TestNotificationsOrdered(t *testing.T) {
	t.Parallel()
	var got []string
	done := make(chan struct{})
	c, s := newPair(t, Options{}, Options{NotifyHandler: func(ctx context.Context, method string, params json.RawMessage) {
		got = append(got, string(params))
		if len(got) == 200 {
			close(done)
		}
	}})
	for i := range 200 {
		if err := c.Notify(testCtx(t), "n", json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	for i, p := range got {
		if p != fmt.Sprintf(`{"i":%d}`, i) {
			t.Fatalf("notification %d is %s", i, p)
		}
	}
	if !alive(s) {
		t.Fatal(s.Err())
	}
}

func TestNotificationOverflow(t *testing.T) {
	t.Parallel()
	for _, policy := range []OverflowPolicy{FailOnOverflow, DropOnOverflow} {
		t.Run(fmt.Sprint(policy), func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			delivered := make(chan string, 8)
			c, p := newRawPeer(t, Options{Handler: echo, NotifyQueue: 2, NotifyOverflow: policy, NotifyHandler: func(ctx context.Context, method string, params json.RawMessage) {
				delivered <- method
				if method == "first" {
					<-release
				}
			}})
			p.send(`{"jsonrpc":"2.0","method":"first"}`)
			if m := <-delivered; m != "first" {
				t.Fatal(m)
			}
			// The worker is held in "first": two fit the queue, the third overflows.
			p.send(`{"jsonrpc":"2.0","method":"q1"}`, `{"jsonrpc":"2.0","method":"q2"}`, `{"jsonrpc":"2.0","method":"over"}`)
			if policy == FailOnOverflow {
				err := waitDone(t, c)
				if !errors.Is(err, ErrNotificationOverflow) || !strings.HasPrefix(err.Error(), "notification queue overflow") {
					t.Fatalf("terminal error %v", err)
				}
				close(release)
				return
			}
			p.roundTrip(1) // the overflow was read (and dropped)
			close(release)
			for _, want := range []string{"q1", "q2"} {
				if m := <-delivered; m != want {
					t.Fatalf("delivered %s, want %s", m, want)
				}
			}
			p.send(`{"jsonrpc":"2.0","method":"last"}`)
			if m := <-delivered; m != "last" {
				t.Fatalf("delivered %s, want last", m)
			}
			if !alive(c) {
				t.Fatal(c.Err())
			}
		})
	}
}

// TestFinalNotificationBeforeEOF: what the peer sent before closing is
// delivered before the connection reports its end.
func TestFinalNotificationBeforeEOF(t *testing.T) {
	t.Parallel()
	var got []string
	c, p := newRawPeer(t, Options{NotifyHandler: func(ctx context.Context, method string, params json.RawMessage) {
		got = append(got, method)
	}})
	p.w.WriteString(`{"jsonrpc":"2.0","method":"chunk"}` + "\n" + `{"jsonrpc":"2.0","method":"end"}`) // no final newline
	p.w.Close()
	if err := waitDone(t, c); !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "chunk,end" {
		t.Fatalf("delivered %v", got)
	}
}

func TestTryNotifyFull(t *testing.T) {
	t.Parallel()
	inR, _ := pipe(t)
	outR, outW := pipe(t)
	gw := &gateWriter{w: outW, entered: make(chan struct{}, 64), release: make(chan struct{})}
	c := New(inR, gw, Options{EventSlots: 3})
	defer c.Close()
	// One in flight (held inside Write), two queued: the slots are full.
	if err := c.TryNotify("e", nil); err != nil {
		t.Fatal(err)
	}
	<-gw.entered
	for range 2 {
		if err := c.TryNotify("e", nil); err != nil {
			t.Fatal(err)
		}
	}
	err := c.TryNotify("e", nil)
	if !errors.Is(err, ErrQueueFull) || err.Error() != "outbound notification queue is full (limit 3)" {
		t.Fatalf("full: %v", err)
	}
	// Ordinary notifications are not limited by the event slots.
	if err := c.Notify(testCtx(t), "n", nil); err != nil {
		t.Fatal(err)
	}
	close(gw.release)
	// Once written, slots free up again.
	br := make([]byte, 4096)
	var seen string
	for strings.Count(seen, "\n") < 4 {
		n, err := outR.Read(br)
		if err != nil {
			t.Fatal(err)
		}
		seen += string(br[:n])
	}
	for {
		if err := c.TryNotify("e", nil); err == nil {
			break
		} else if !errors.Is(err, ErrQueueFull) {
			t.Fatal(err)
		}
	}
}

func TestTryNotifyDefaultLimit(t *testing.T) {
	t.Parallel()
	inR, _ := pipe(t)
	_, outW := pipe(t)
	gw := &gateWriter{w: outW, entered: make(chan struct{}, 64), release: make(chan struct{})}
	c := New(inR, gw, Options{})
	defer func() { close(gw.release); c.Close() }()
	var err error
	for range 17 {
		if err = c.TryNotify("e", nil); err != nil {
			break
		}
	}
	if err == nil || err.Error() != "outbound notification queue is full (limit 16)" {
		t.Fatalf("17th TryNotify: %v", err)
	}
}
