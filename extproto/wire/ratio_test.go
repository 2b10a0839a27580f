//go:build unix

package wire

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/benchratio"
)

// BenchmarkRatio interleaves raw-echo and Conn round trips in blocks
// inside one loop, so both see the same machine noise, and reports the
// per-call wall and CPU time of each and their ratios. On a loaded 2-vCPU
// machine this is the figure that holds.
func BenchmarkRatio(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		reqR, reqW := pipe(b)
		respR, respW := pipe(b)
		go rawEcho(reqR, respW)
		defer reqW.Close()
		c, _ := newPair(b, Options{}, Options{Handler: echo})
		ratioLoop(b, newRawClient(reqW, respR), c)
	})
	b.Run("cross-process", func(b *testing.B) {
		rawCmd, rawIn, rawOut := startChild(b, "raw")
		connCmd, connIn, connOut := startChild(b, "conn")
		c := New(connOut, connIn, Options{})
		defer func() {
			rawIn.Close()
			c.Close()
			reportChildQuiet(b, rawCmd)
			reportChildQuiet(b, connCmd)
		}()
		ratioLoop(b, newRawClient(rawIn, rawOut), c, rawCmd.Process.Pid, connCmd.Process.Pid)
	})
}

type rawClient struct {
	w     io.Writer
	br    *bufio.Reader
	frame []byte
}

func newRawClient(w io.Writer, r io.Reader) *rawClient {
	return &rawClient{w: w, br: bufio.NewReaderSize(r, 64<<10), frame: benchFrame()}
}

func (r *rawClient) roundTrip(b *testing.B) {
	if _, err := r.w.Write(r.frame); err != nil {
		b.Fatal(err)
	}
	if _, err := r.br.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
}

// ratioLoop alternates blocks of raw and Conn calls (internal/benchratio).
// pids are the child processes of the raw side and the Conn side; none
// when both are in process.
func ratioLoop(b *testing.B, raw *rawClient, c *Conn, pids ...int) {
	ctx := callCtx(b)
	var rawSide, connSide benchratio.Side
	if len(pids) == 2 {
		rawSide.PIDs, connSide.PIDs = pids[:1], pids[1:]
	}
	rawSide.Call = func() { raw.roundTrip(b) }
	connSide.Call = func() {
		if _, err := c.Call(ctx, benchMethod, benchParams); err != nil {
			b.Fatal(err)
		}
	}
	benchratio.Interleave(b, 256, rawSide, connSide)
}

func reportChildQuiet(b *testing.B, cmd interface{ Wait() error }) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(testDeadline):
		b.Fatal("child did not exit")
	}
}
