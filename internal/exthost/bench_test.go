package exthost

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// rawEchoChild is the floor of the intercept benchmarks: a child echoing
// newline-framed lines over two OS pipes.
type rawEchoChild struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	r    *bufio.Reader
	line []byte
}

func startRawEcho(b *testing.B) *rawEchoChild {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envFakeMode+"=raw-echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	return &rawEchoChild{cmd: cmd, in: in, r: bufio.NewReaderSize(out, 64<<10),
		line: []byte(`{"jsonrpc":"2.0","id":1,"method":"extension/intercept","params":{"event":"input.receive","seq":1,"payload":{"text":"hello"}}}` + "\n")}
}

func (r *rawEchoChild) roundTrip(b *testing.B) {
	if _, err := r.in.Write(r.line); err != nil {
		b.Fatal(err)
	}
	if _, err := r.r.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
}

func (r *rawEchoChild) close() { _ = r.in.Close(); _ = r.cmd.Wait() }

// BenchmarkRawEcho is the floor: one ~120-byte line to a child and back
// over two OS pipes.
func BenchmarkRawEcho(b *testing.B) {
	raw := startRawEcho(b)
	defer raw.close()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := selfCPU()
	for i := 0; i < b.N; i++ {
		raw.roundTrip(b)
	}
	b.ReportMetric(float64(selfCPU()-cpu)/float64(b.N)/1e3, "host-cpu-µs/op")
}

// loadBench starts plugins in a generation of a new manager, closed when
// the benchmark run ends, and fails unless every sidecar runs.
func loadBench(b *testing.B, plugins ...*Plugin) *Generation {
	b.Helper()
	m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
	b.Cleanup(func() { m.Close() })
	g, err := m.Load(context.Background(), plugins)
	if err != nil {
		b.Fatal(err)
	}
	if len(g.Sidecars) != len(plugins) {
		b.Fatalf("%d of %d sidecars started: %q", len(g.Sidecars), len(plugins), g.Warnings)
	}
	return g
}

// helloPlugin is examples/hello, a sidecar on our own SDK, under id.
func helloPlugin(b *testing.B, id string) *Plugin {
	src := examplestest.Source(b, "hello")
	return &Plugin{
		ID:      id,
		Root:    src,
		Version: "0.1.0",
		Runtime: manifest.Runtime{
			Command:      filepath.Join(src, "bin", "hello"),
			Intercepts:   []extproto.HookPoint{extproto.InputReceive, extproto.SessionStart},
			Capabilities: []extproto.Capability{extproto.CapInterceptors, extproto.CapUI},
		},
	}
}

// BenchmarkIntercept is one input.receive intercept through the
// dispatcher to a real sidecar process (scripted on extproto/wire) and
// back: encode, externalization check, seq, budget, strict decode.
func BenchmarkIntercept(b *testing.B) {
	for _, n := range []int{1, 8} {
		b.Run(fmt.Sprintf("chain=%d", n), func(b *testing.B) {
			var plugins []*Plugin
			for i := range n {
				p, _ := fakePluginB(b, fmt.Sprintf("p%d", i))
				p.Intercepts = []extproto.HookPoint{extproto.InputReceive}
				plugins = append(plugins, p)
			}
			g := loadBench(b, plugins...)
			payload := &extproto.InputReceivePayload{Text: "hello"}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			cpu := selfCPU()
			for i := 0; i < b.N; i++ {
				if _, err := g.Intercept(ctx, extproto.InputReceive, payload); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(selfCPU()-cpu)/float64(b.N)/1e3, "host-cpu-µs/op")
		})
	}
}

// BenchmarkInterceptSDK is BenchmarkIntercept against examples/hello, a
// sidecar on our own SDK (sdk), which answers continue for text
// that is not "/hello".
func BenchmarkInterceptSDK(b *testing.B) {
	g := loadBench(b, helloPlugin(b, "hello"))
	payload := &extproto.InputReceivePayload{Text: "hello"}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu, child := selfCPU(), childCPUOf(g.Sidecars[0])
	for i := 0; i < b.N; i++ {
		if _, err := g.Intercept(ctx, extproto.InputReceive, payload); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(selfCPU()-cpu)/float64(b.N)/1e3, "host-cpu-µs/op")
	b.ReportMetric(float64(childCPUOf(g.Sidecars[0])-child)/float64(b.N)/1e3, "sidecar-cpu-µs/op")
}

// childCPUOf reads a running sidecar's CPU time from /proc.
func childCPUOf(s *Sidecar) time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.proc.tree.Pid()))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	// After the command: state is field 3, utime 14 and stime 15 (1-based
	// in proc(5)), so indexes 11 and 12 here; clock ticks are 100 Hz.
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// BenchmarkEvent is the caller's cost of one observation to one sidecar.
func BenchmarkEvent(b *testing.B) {
	p, _ := fakePluginB(b, "obs")
	p.Intercepts = []extproto.HookPoint{extproto.FrontendEvent}
	g := loadBench(b, p)
	payload := &extproto.FrontendEventPayload{Kind: "log", Text: "something happened"}
	dropped := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dropped += len(g.Event(extproto.FrontendEvent, payload))
	}
	b.ReportMetric(float64(dropped), "drop-warnings")
}

// BenchmarkNoRuntimeHook is a hook call with no plugin installed.
func BenchmarkNoRuntimeHook(b *testing.B) {
	g, _ := newGeneration(1, nil, observers{})
	payload := &extproto.InputReceivePayload{Text: "hello"}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, _ = g.Intercept(ctx, extproto.InputReceive, payload)
	}
}

// BenchmarkStart starts a generation of n sidecars (spawn + handshake,
// 4 at a time) against the baseline of spawning the same binary n times,
// 4 at a time, doing nothing.
func BenchmarkStart(b *testing.B) {
	exe, _ := os.Executable()
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("spawn-noop/n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var eg errgroup.Group
				eg.SetLimit(extproto.GenerationParallelStart)
				for range n {
					eg.Go(func() error {
						cmd := exec.Command(exe)
						cmd.Env = append(os.Environ(), envFakeMode+"=noop")
						return cmd.Run()
					})
				}
				if err := eg.Wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("generation/n=%d", n), func(b *testing.B) {
			var plugins []*Plugin
			for i := range n {
				p, _ := fakePluginB(b, fmt.Sprintf("p%02d", i))
				plugins = append(plugins, p)
			}
			for i := 0; i < b.N; i++ {
				m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
				if _, err := m.Load(context.Background(), plugins); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				m.Close()
				b.StartTimer()
			}
		})
	}
}

func fakePluginB(b *testing.B, id string) (*Plugin, string) {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	return &Plugin{
		ID:      id,
		Root:    b.TempDir(),
		Version: "1.0.0",
		Runtime: manifest.Runtime{
			Command:      exe,
			Env:          map[string]string{envFakeMode: "ok"},
			Capabilities: []extproto.Capability{extproto.CapInterceptors},
		},
	}, ""
}
