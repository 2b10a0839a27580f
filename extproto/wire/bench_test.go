//go:build unix

package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// Round-trip benchmarks over real OS pipes. Each compares our Conn with a
// raw newline echo of the same bytes over the same kind of pipes, in the
// same run, in process and across two processes (the test binary
// re-executed as the echo child, see child_test.go). docs/PERFORMANCE.md
// records the figures and the command.

// benchParams is a small intercept-like params object (about 130 bytes).
var benchParams = json.RawMessage(`{"event":"tool.before","seq":1,"timeoutMillis":5000,"payload":{"name":"read_file","arguments":"{\"path\":\"main.go\"}"}}`)

const benchMethod = "extension/intercept"

// benchFrame is the request frame our Conn writes for one call, which the
// raw echo sends and receives instead.
func benchFrame() []byte {
	f := getBuf()
	defer putBuf(f)
	if err := f.request(1, true, benchMethod, benchParams); err != nil {
		panic(err)
	}
	return append([]byte(nil), f.b...)
}

func BenchmarkInProcess(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		reqR, reqW := pipe(b)
		respR, respW := pipe(b)
		go rawEcho(reqR, respW)
		defer reqW.Close()
		rawLoop(b, reqW, respR)
	})
	b.Run("conn", func(b *testing.B) {
		c, _ := newPair(b, Options{}, Options{Handler: echo})
		connLoop(b, c)
	})
}

func BenchmarkCrossProcess(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		cmd, stdin, stdout := startChild(b, "raw")
		defer func() {
			stdin.Close()
			reportChild(b, cmd)
		}()
		rawLoop(b, stdin, stdout)
	})
	b.Run("conn", func(b *testing.B) {
		cmd, stdin, stdout := startChild(b, "conn")
		c := New(stdout, stdin, Options{})
		defer func() {
			c.Close()
			reportChild(b, cmd)
		}()
		connLoop(b, c)
	})
}

func rawEcho(r io.Reader, w io.WriteCloser) {
	defer w.Close()
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		if _, err := w.Write(line); err != nil {
			return
		}
	}
}

func rawLoop(b *testing.B, w io.Writer, r io.Reader) {
	frame := benchFrame()
	br := bufio.NewReaderSize(r, 64<<10)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		if _, err := w.Write(frame); err != nil {
			b.Fatal(err)
		}
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// callCtx is the context of every benchmarked call: one with a deadline,
// as the host's intercepts have.
func callCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	b.Cleanup(cancel)
	return ctx
}

func connLoop(b *testing.B, c *Conn) {
	ctx := callCtx(b)
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		if _, err := c.Call(ctx, benchMethod, benchParams); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// startChild re-executes the test binary as an echo child. Its stdio are
// plain os.Pipe ends, so our side can use write deadlines, as the host's
// do.
func startChild(b *testing.B, mode string) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
	inR, inW := pipe(b)
	outR, outW := pipe(b)
	cmd.Stdin, cmd.Stdout = inR, outW
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	inR.Close()
	outW.Close()
	return cmd, inW, outR
}

// reportChild waits for the child and reports its CPU per call (user +
// system, including its start-up, which is noise at these N).
func reportChild(b *testing.B, cmd *exec.Cmd) {
	b.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			b.Fatalf("child: %v", err)
		}
	case <-time.After(testDeadline):
		cmd.Process.Kill()
		b.Fatal("child did not exit")
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok || b.N == 0 {
		return
	}
	ns := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	b.ReportMetric(float64(ns.Microseconds())/float64(b.N), "child-cpu-µs/op")
}

type cpuMark struct{ start int64 }

func selfCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func startCPU() cpuMark { return cpuMark{selfCPU()} }

// report adds this process's CPU per call (both ends when in process).
func (m cpuMark) report(b *testing.B) {
	if b.N == 0 {
		return
	}
	b.ReportMetric(float64(selfCPU()-m.start)/1e3/float64(b.N), "cpu-µs/op")
}
