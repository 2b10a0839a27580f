//go:build unix

package wire

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkRatio interleaves raw-echo and Conn round trips in blocks
// inside one loop, so both see the same machine noise, and reports the
// per-call wall time and CPU time (this process plus the child, read from
// the kernel's per-thread schedstat in nanoseconds) of each, and their
// ratios. On a loaded 2-vCPU machine this is the figure that holds.
func BenchmarkRatio(b *testing.B) {
	b.Run("in-process", func(b *testing.B) {
		reqR, reqW := pipe(b)
		respR, respW := pipe(b)
		go rawEcho(reqR, respW)
		defer reqW.Close()
		c, _ := newPair(b, Options{}, Options{Handler: echo})
		ratioLoop(b, newRawClient(reqW, respR), c, 0)
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

// ratioLoop alternates blocks of raw and Conn calls. pids are the child
// processes whose CPU counts towards the respective side (0 = none):
// pids[0] for raw, pids[1] for conn; with a single 0 both are in process.
func ratioLoop(b *testing.B, raw *rawClient, c *Conn, pids ...int) {
	const block = 256
	ctx := callCtx(b)
	rawPid, connPid := 0, 0
	if len(pids) == 2 {
		rawPid, connPid = pids[0], pids[1]
	}
	var wall, cpu [2]time.Duration
	var blocks [2]int
	pidOf := func(side int) int {
		if side == 0 {
			return rawPid
		}
		return connPid
	}
	side, inBlock := 0, 0
	start, cpuStart := time.Now(), cpuNow(b, pidOf(0))
	for b.Loop() {
		if side == 0 {
			raw.roundTrip(b)
		} else if _, err := c.Call(ctx, benchMethod, benchParams); err != nil {
			b.Fatal(err)
		}
		if inBlock++; inBlock < block {
			continue
		}
		wall[side] += time.Since(start)
		cpu[side] += cpuNow(b, pidOf(side)) - cpuStart
		blocks[side]++
		side, inBlock = 1-side, 0
		start, cpuStart = time.Now(), cpuNow(b, pidOf(side))
	}
	if blocks[0] == 0 || blocks[1] == 0 {
		return // too few iterations for a whole block of each
	}
	per := func(d time.Duration, side int) float64 {
		return float64(d.Nanoseconds()) / 1e3 / float64(blocks[side]*block)
	}
	rawWall, connWall := per(wall[0], 0), per(wall[1], 1)
	rawCPU, connCPU := per(cpu[0], 0), per(cpu[1], 1)
	b.ReportMetric(rawWall, "raw-µs/call")
	b.ReportMetric(connWall, "conn-µs/call")
	b.ReportMetric(connWall/rawWall, "wall-ratio")
	b.ReportMetric(rawCPU, "raw-cpu-µs/call")
	b.ReportMetric(connCPU, "conn-cpu-µs/call")
	b.ReportMetric(connCPU/rawCPU, "cpu-ratio")
}

// cpuNow is the CPU time of this process plus child pid (if not 0).
func cpuNow(b *testing.B, pid int) time.Duration {
	d := schedstat(b, "self")
	if pid != 0 {
		d += schedstat(b, strconv.Itoa(pid))
	}
	return d
}

// schedstat sums the on-CPU nanoseconds of every thread of a process.
func schedstat(b *testing.B, pid string) time.Duration {
	paths, _ := filepath.Glob(fmt.Sprintf("/proc/%s/task/*/schedstat", pid))
	if len(paths) == 0 {
		b.Skip("no /proc schedstat on this system")
	}
	var total time.Duration
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that just exited
		}
		f := strings.Fields(string(data))
		if len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
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
