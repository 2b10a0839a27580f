package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// paddedRequest is a request frame of exactly n bytes including its
// newline, padded inside params.
func paddedRequest(n int) []byte {
	head := `{"jsonrpc":"2.0","id":1,"method":"size","params":{"p":"`
	tail := `"}}` + "\n"
	pad := n - len(head) - len(tail)
	return []byte(head + strings.Repeat("x", pad) + tail)
}

func sizeHandler(_ context.Context, _ string, params json.RawMessage) (any, error) {
	return len(params), nil
}

// TestInboundFrameAtLimit: exactly extproto.FrameBytes with its newline is
// accepted.
func TestInboundFrameAtLimit(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: sizeHandler})
	frame := paddedRequest(extproto.FrameBytes)
	if len(frame) != 8388608 {
		t.Fatalf("frame is %d bytes", len(frame))
	}
	if _, err := p.w.Write(frame); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":` + itoa(extproto.FrameBytes-len(`{"jsonrpc":"2.0","id":1,"method":"size","params":`)-2) + `}`
	if got := p.recv(); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// TestInboundFrameOverLimit: one byte more is connection-fatal with
// frame_too_large and no JSON error frame.
func TestInboundFrameOverLimit(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: sizeHandler})
	go p.w.Write(paddedRequest(extproto.FrameBytes + 1))
	err := waitDone(t, c)
	if !errors.Is(err, extproto.ErrFrameTooLarge) {
		t.Fatalf("terminal error %v", err)
	}
	<-p.eof
	p.expectNothing()
}

// countingReader yields an endless line (no newline ever) and counts the
// bytes taken from it.
type countingReader struct{ n atomic.Int64 }

func (r *countingReader) Read(b []byte) (int, error) {
	for i := range b {
		b[i] = 'a'
	}
	r.n.Add(int64(len(b)))
	return len(b), nil
}

// TestOversizedLineNotBuffered: the reader stops once the budget is
// exceeded instead of reading to the next newline.
func TestOversizedLineNotBuffered(t *testing.T) {
	t.Parallel()
	r := &countingReader{}
	c := New(r, io.Discard, Options{})
	defer c.Close()
	if err := waitDone(t, c); !errors.Is(err, extproto.ErrFrameTooLarge) {
		t.Fatalf("terminal error %v", err)
	}
	if n := r.n.Load(); n > extproto.FrameBytes+readBufSize {
		t.Fatalf("consumed %d bytes for a %d-byte budget", n, extproto.FrameBytes)
	}
}

func TestFrameReaderBoundaries(t *testing.T) {
	t.Parallel()
	const limit = 16
	cases := []struct {
		name  string
		in    string
		lines []string
		err   error
	}{
		{"exact-with-newline", strings.Repeat("a", 15) + "\n", []string{strings.Repeat("a", 15)}, io.EOF},
		{"one-over-with-newline", strings.Repeat("a", 16) + "\n", nil, extproto.ErrFrameTooLarge},
		{"exact-at-eof", strings.Repeat("a", 16), []string{strings.Repeat("a", 16)}, io.EOF},
		{"over-at-eof", strings.Repeat("a", 17), nil, extproto.ErrFrameTooLarge},
		{"final-frame-no-newline", "a\nbc", []string{"a", "bc"}, io.EOF},
		{"crlf", "a\r\nb\r\n", []string{"a\r", "b\r"}, io.EOF},
		{"second-line-over", "ok\n" + strings.Repeat("b", 20) + "\n", []string{"ok"}, extproto.ErrFrameTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, bufSize := range []int{16, 4096} { // lines spanning bufio refills, and not
				fr := newFrameReader(strings.NewReader(tc.in), limit)
				fr.br = bufio.NewReaderSize(strings.NewReader(tc.in), bufSize)
				var got []string
				var err error
				for {
					var line []byte
					line, err = fr.next()
					if err != nil {
						break
					}
					got = append(got, string(line))
				}
				if strings.Join(got, "|") != strings.Join(tc.lines, "|") || !errors.Is(err, tc.err) {
					t.Fatalf("buf %d: lines %q err %v; want %q %v", bufSize, got, err, tc.lines, tc.err)
				}
			}
		})
	}
}

func TestTrimFrame(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{" \t{}\t \r": "{}", "\r": "", "  ": "", "{} ": "{}"} {
		if got := string(trimFrame([]byte(in))); got != want {
			t.Errorf("trim %q = %q, want %q", in, got, want)
		}
	}
}

// TestOutboundFrameLimit: a call or notification whose frame would exceed
// the limit fails alone, nothing is written, the connection stays up.
// The boundary is exact: limit bytes with the newline go out.
func TestOutboundFrameLimit(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: echo})
	ctx := testCtx(t)
	raw := func(frameLen int) json.RawMessage {
		overhead := len(`{"jsonrpc":"2.0","method":"n","params":{"p":""}}` + "\n")
		return json.RawMessage(`{"p":"` + strings.Repeat("y", frameLen-overhead) + `"}`)
	}
	err := c.Notify(ctx, "n", raw(extproto.FrameBytes+1))
	if !errors.Is(err, extproto.ErrFrameTooLarge) {
		t.Fatalf("notify over limit: %v", err)
	}
	if err := c.TryNotify("n", raw(extproto.FrameBytes+1)); !errors.Is(err, extproto.ErrFrameTooLarge) {
		t.Fatalf("trynotify over limit: %v", err)
	}
	_, err = c.Call(ctx, "n", raw(extproto.FrameBytes))
	if !errors.Is(err, extproto.ErrFrameTooLarge) { // a call frame carries "id":N too
		t.Fatalf("call over limit: %v", err)
	}
	if err := c.Notify(ctx, "n", raw(extproto.FrameBytes)); err != nil {
		t.Fatalf("notify at limit: %v", err)
	}
	if got := p.recv(); len(got)+1 != extproto.FrameBytes {
		t.Fatalf("frame at limit arrived with %d bytes", len(got)+1)
	}
	p.roundTrip(1)
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// TestResponseOverLimit: an answer too big to send becomes the small
// -32603 error without data.
func TestResponseOverLimit(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("z"), extproto.FrameBytes)
	c, _ := newPair(t, Options{}, Options{Handler: func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		if method == "big" {
			return string(big), nil
		}
		return nil, extproto.NewError(extproto.ReasonInternal, string(big))
	}})
	for _, m := range []string{"big", "big-error"} {
		_, err := c.Call(testCtx(t), m, nil)
		var pe *extproto.Error
		if !errors.As(err, &pe) || pe.Code != -32603 || pe.Message != "response exceeds frame size limit" || pe.Reason != "" {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// TestWriteStall: a peer that stops reading fails the connection once one
// write makes no progress for StallTimeout; pending calls fail with it.
func TestWriteStall(t *testing.T) {
	t.Parallel()
	inR, _ := pipe(t)
	_, outW := pipe(t) // nobody ever reads
	c := New(inR, outW, Options{StallTimeout: 50 * time.Millisecond})
	defer c.Close()
	errc := make(chan error, 1)
	go func() {
		// Fill the pipe until the writer blocks; Notify only queues.
		big := json.RawMessage(`{"p":"` + strings.Repeat("s", 256<<10) + `"}`)
		for {
			if err := c.Notify(context.Background(), "fill", big); err != nil {
				errc <- err
				return
			}
		}
	}()
	err := waitDone(t, c)
	if !errors.Is(err, ErrWriteStall) {
		t.Fatalf("terminal error %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrWriteStall) {
		t.Fatalf("blocked notify: %v", err)
	}
	if _, err := c.Call(context.Background(), "m", nil); !errors.Is(err, ErrWriteStall) {
		t.Fatalf("call after stall: %v", err)
	}
}

// TestStallWatchdogIgnoresIdle: an idle connection (nothing to write)
// never stalls, however long it waits.
func TestStallWatchdogIgnoresIdle(t *testing.T) {
	t.Parallel()
	c, _ := newPair(t, Options{StallTimeout: 10 * time.Millisecond}, Options{Handler: echo, StallTimeout: 10 * time.Millisecond})
	deadline := time.After(200 * time.Millisecond)
	for {
		select {
		case <-deadline:
			return
		case <-c.Done():
			t.Fatal(c.Err())
		default:
		}
		if _, err := c.Call(testCtx(t), "echo", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
