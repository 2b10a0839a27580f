package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

// Callers reading their own answers (lead.go). With CallerReads of an
// hour the role parked after an answer stays parked until a caller takes
// it, so each test knows who reads.

type leadPeer struct {
	*rawPeer
	c         *Conn
	notes     chan string
	unmatched chan UnmatchedResponse
}

func newLeadPeer(t *testing.T, park time.Duration) *leadPeer {
	t.Helper()
	lp := &leadPeer{notes: make(chan string, 64), unmatched: make(chan UnmatchedResponse, 8)}
	lp.c, lp.rawPeer = newRawPeer(t, Options{
		CallerReads: park,
		Handler:     echo,
		NotifyHandler: func(_ context.Context, method string, _ json.RawMessage) {
			lp.notes <- method
		},
		OnUnmatched: func(u UnmatchedResponse) { lp.unmatched <- u },
	})
	if lp.c.role == nil {
		t.Skip("callers cannot read on this system (no read deadlines on pipes)")
	}
	return lp
}

type callResult struct {
	raw json.RawMessage
	err error
}

func (lp *leadPeer) call(ctx context.Context, method string) chan callResult {
	done := make(chan callResult, 1)
	go func() {
		raw, err := lp.c.Call(ctx, method, map[string]string{"m": method})
		done <- callResult{raw, err}
	}()
	return done
}

// request reads the next frame the Conn sent and returns its id.
func (lp *leadPeer) request() int64 {
	lp.t.Helper()
	line := lp.recv()
	var m struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil || m.Method == "" {
		lp.t.Fatalf("expected a request, got %s", line)
	}
	return m.ID
}

func (lp *leadPeer) answer(id int64, v string) {
	lp.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"v":%q}}`, id, v))
}

func wantResult(t *testing.T, done chan callResult, v string) {
	t.Helper()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("call failed: %v", r.err)
		}
		if want := fmt.Sprintf(`{"v":%q}`, v); string(r.raw) != want {
			t.Fatalf("call got %s, want %s", r.raw, want)
		}
	case <-time.After(testDeadline):
		t.Fatal("call did not return")
	}
}

func (lp *leadPeer) wantNote(method string) {
	lp.t.Helper()
	select {
	case got := <-lp.notes:
		if got != method {
			lp.t.Fatalf("notification %q, want %q", got, method)
		}
	case <-time.After(testDeadline):
		lp.t.Fatalf("notification %q not delivered", method)
	}
}

// warm makes one call, after which the reading role is parked.
func (lp *leadPeer) warm(ctx context.Context) {
	lp.t.Helper()
	done := lp.call(ctx, "warm")
	lp.answer(lp.request(), "warm")
	wantResult(lp.t.(*testing.T), done, "warm")
}

func TestCallerReadsNotificationWhileLeading(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ctx  func(t testing.TB) context.Context
	}{
		{"no deadline", func(testing.TB) context.Context { return context.Background() }},
		{"deadline", testCtx},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lp := newLeadPeer(t, time.Hour)
			ctx := tc.ctx(t)
			lp.warm(ctx)
			// Sent while nobody reads: the next caller reads it.
			lp.send(`{"jsonrpc":"2.0","method":"n1"}`)
			done := lp.call(ctx, "second")
			id := lp.request()
			lp.send(`{"jsonrpc":"2.0","method":"n2"}`)
			lp.answer(id, "second")
			wantResult(t, done, "second")
			lp.wantNote("n1")
			lp.wantNote("n2")
			// Unsolicited traffic flowed while the caller read, so the
			// role went back to a reader: this one arrives with no call.
			lp.send(`{"jsonrpc":"2.0","method":"n3"}`)
			lp.wantNote("n3")
		})
	}
}

func TestCallerReadsParkedRoleReturnsToReader(t *testing.T) {
	t.Parallel()
	lp := newLeadPeer(t, time.Millisecond)
	lp.warm(context.Background())
	lp.send(`{"jsonrpc":"2.0","method":"after"}`)
	lp.wantNote("after")
	lp.roundTrip(90)
}

func TestCallerReadsCancelledWhileLeading(t *testing.T) {
	t.Parallel()
	lp := newLeadPeer(t, time.Hour)
	lp.warm(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	done := lp.call(ctx, "slow")
	id := lp.request()
	// Half a frame: the caller's read is interrupted in the middle of it.
	if _, err := lp.w.WriteString(`{"jsonrpc":"2.0","me`); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Fatalf("cancelled call: %v, want context.Canceled", r.err)
		}
	case <-time.After(testDeadline):
		t.Fatal("cancelled call did not return")
	}
	// The rest of the frame reaches a reader goroutine, which got the
	// role and the partial frame: nothing is lost or garbled.
	if _, err := lp.w.WriteString(`thod":"tail"}` + "\n"); err != nil {
		t.Fatal(err)
	}
	lp.wantNote("tail")
	lp.answer(id, "late")
	select {
	case u := <-lp.unmatched:
		if u.ID != id || !u.Late {
			t.Fatalf("late answer reported as %+v", u)
		}
	case <-time.After(testDeadline):
		t.Fatal("late answer not reported")
	}
	done = lp.call(context.Background(), "after")
	lp.answer(lp.request(), "after")
	wantResult(t, done, "after")
}

func TestCallerReadsConcurrentCallers(t *testing.T) {
	t.Parallel()
	lp := newLeadPeer(t, time.Hour)
	lp.warm(context.Background())
	for i := range 50 {
		ctxA := context.Background()
		ctxB := testCtx(t)
		if i%2 == 1 {
			ctxA, ctxB = ctxB, ctxA
		}
		a := lp.call(ctxA, "a")
		b := lp.call(ctxB, "b")
		ids := map[string]int64{}
		for range 2 {
			line := lp.recv()
			var m struct {
				ID     int64
				Params struct{ M string }
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatal(err)
			}
			ids[m.Params.M] = m.ID
		}
		// Answered in the other order than asked, sometimes together.
		if i%3 == 0 {
			lp.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"v":"b"}}`+"\n"+`{"jsonrpc":"2.0","id":%d,"result":{"v":"a"}}`, ids["b"], ids["a"]))
		} else {
			lp.answer(ids["b"], "b")
			lp.answer(ids["a"], "a")
		}
		wantResult(t, a, "a")
		wantResult(t, b, "b")
	}
}

func TestCallerReadsRequestWhileLeading(t *testing.T) {
	t.Parallel()
	lp := newLeadPeer(t, time.Hour)
	lp.warm(context.Background())
	done := lp.call(testCtx(t), "waiting")
	id := lp.request()
	// The peer calls us while our caller reads: the request is served
	// (by a reader goroutine that takes the role) and answered before
	// the caller's own answer arrives.
	lp.roundTrip(7)
	lp.answer(id, "waiting")
	wantResult(t, done, "waiting")
}

func TestCallerReadsStreamOpen(t *testing.T) {
	t.Parallel()
	// A call opening a stream hands the role back with its answer: the
	// chunks that follow are read with no call in flight, whether the
	// caller read the answer (the role was parked) or a reader goroutine
	// did (it does not park the role after it).
	for _, warm := range []bool{true, false} {
		t.Run(fmt.Sprintf("caller reads %v", warm), func(t *testing.T) {
			t.Parallel()
			lp := newLeadPeer(t, time.Hour)
			if warm {
				lp.warm(context.Background())
			}
			done := lp.call(HandBack(testCtx(t)), "open")
			id := lp.request()
			lp.answer(id, "open")
			wantResult(t, done, "open")
			for i := range 20 {
				lp.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"chunk%d"}`, i))
			}
			for i := range 20 {
				lp.wantNote(fmt.Sprintf("chunk%d", i))
			}
		})
	}
}

func TestCallWithin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		park  time.Duration // 0: callers never read, a timer bounds the wait
		other bool          // another caller holds the role meanwhile
	}{
		{"reader goroutine reads", 0, false},
		{"caller reads", time.Hour, false},
		{"another caller reads", time.Hour, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			lp := &leadPeer{notes: make(chan string, 64), unmatched: make(chan UnmatchedResponse, 8)}
			lp.c, lp.rawPeer = newRawPeer(t, Options{CallerReads: tc.park, Handler: echo,
				NotifyHandler: func(_ context.Context, method string, _ json.RawMessage) { lp.notes <- method }})
			ctx := context.Background()
			if tc.park > 0 {
				lp.warm(ctx)
			}
			var other chan callResult
			var otherID int64
			if tc.other {
				other = lp.call(ctx, "other")
				otherID = lp.request()
			}
			_, err := lp.c.CallWithin(ctx, 20*time.Millisecond, "never", nil)
			if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
				t.Fatalf("CallWithin past its bound: %v", err)
			}
			lp.request() // the call's frame did go out
			if tc.other {
				lp.answer(otherID, "other")
				wantResult(t, other, "other")
			}
			// Still reading: a call is answered, a notification arrives.
			done := make(chan callResult, 1)
			go func() {
				raw, err := lp.c.CallWithin(ctx, testDeadline, "ok", nil)
				done <- callResult{raw, err}
			}()
			id := lp.request()
			lp.send(`{"jsonrpc":"2.0","method":"still"}`)
			lp.answer(id, "ok")
			wantResult(t, done, "ok")
			lp.wantNote("still")
		})
	}
}

// TestCloseWhileCallerReadsEOF: the peer leaves while a caller holds the
// reading role and Close runs at the same moment. The caller's read
// failure closes r on the caller's goroutine, which is not one of the
// Conn's own; Close must still see that close complete before it reads
// its error (go test -race caught Close reading it unsynchronised).
func TestCloseWhileCallerReadsEOF(t *testing.T) {
	t.Parallel()
	for i := range 40 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			lp := newLeadPeer(t, time.Hour)
			ctx := context.Background()
			lp.warm(ctx)
			done := lp.call(ctx, "pending")
			lp.request()
			lp.w.Close()
			time.Sleep(time.Duration(i%8) * 20 * time.Microsecond)
			if err := lp.c.Close(); err != nil {
				t.Errorf("Close = %v", err)
			}
			select {
			case r := <-done:
				if r.err == nil {
					t.Error("the pending call succeeded")
				}
			case <-time.After(testDeadline):
				t.Fatal("the pending call did not return")
			}
		})
	}
}
