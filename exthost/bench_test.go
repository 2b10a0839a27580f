package exthost

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
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
	"github.com/rx-bridge/rx-bridge/manifest"
)

// BenchmarkRawEcho is the floor: one ~120-byte line to a child and back
// over two OS pipes.
func BenchmarkRawEcho(b *testing.B) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envFakeMode+"=raw-echo")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()
	r := bufio.NewReader(out)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"extension/intercept","params":{"event":"input.receive","seq":1,"payload":{"text":"hello"}}}` + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	cpu := selfCPU()
	for i := 0; i < b.N; i++ {
		if _, err := in.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(selfCPU()-cpu)/float64(b.N)/1e3, "host-cpu-µs/op")
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
			m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
			defer m.Close()
			g, err := m.Load(context.Background(), plugins)
			if err != nil {
				b.Fatal(err)
			}
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
	src := examplestest.Source(b, "hello")
	p := &Plugin{
		ID:      "hello",
		Root:    src,
		Version: "0.1.0",
		Runtime: manifest.Runtime{
			Command:      filepath.Join(src, "bin", "hello"),
			Intercepts:   []extproto.HookPoint{extproto.InputReceive, extproto.SessionStart},
			Capabilities: []extproto.Capability{extproto.CapInterceptors, extproto.CapUI},
		},
	}
	m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
	defer m.Close()
	g, err := m.Load(context.Background(), []*Plugin{p})
	if err != nil {
		b.Fatal(err)
	}
	if len(g.Sidecars) != 1 {
		b.Fatalf("hello did not start: %q", g.Warnings)
	}
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
	m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
	defer m.Close()
	g, err := m.Load(context.Background(), []*Plugin{p})
	if err != nil {
		b.Fatal(err)
	}
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
