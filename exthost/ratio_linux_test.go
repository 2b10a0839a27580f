package exthost

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/manifest"
)

// BenchmarkInterceptRatio interleaves, in blocks inside one loop, a raw
// newline echo to a child process (the floor) and one intercept walk of
// the case, so both see the same machine noise. It reports each side's
// wall and CPU time per call (this process plus the child processes,
// from the kernel's per-thread schedstat, in nanoseconds) and the ratios
// to the floor; ns-per-op is meaningless here. Cases:
//
//   - sdk: examples/hello, a sidecar on our SDK (answers continue);
//   - reasonix-sdk: a sidecar that behaves like the Reasonix Go SDK
//     (PROTOCOL_DETAILS §12: encoding/json, a goroutine per request);
//   - chain=4: four examples/hello sidecars in one chain.
func BenchmarkInterceptRatio(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
		mode string // fake sidecar mode, "" for examples/hello
	}{
		{"sdk", 1, ""},
		{"reasonix-sdk", 1, "reasonix-sdk"},
		{"chain=4", 4, ""},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var plugins []*Plugin
			for i := range tc.n {
				plugins = append(plugins, ratioPlugin(b, fmt.Sprintf("p%d", i), tc.mode))
			}
			m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
			defer m.Close()
			g, err := m.Load(context.Background(), plugins)
			if err != nil {
				b.Fatal(err)
			}
			if len(g.Sidecars) != tc.n {
				b.Fatalf("sidecars did not start: %q", g.Warnings)
			}
			var pids []int
			for _, s := range g.Sidecars {
				pids = append(pids, s.proc.tree.Pid())
			}
			raw := startRawEcho(b)
			defer raw.close()
			payload := &extproto.InputReceivePayload{Text: "hello"}
			ctx := context.Background()
			interceptRatioLoop(b, raw, pids, func() {
				if _, err := g.Intercept(ctx, extproto.InputReceive, payload); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// ratioPlugin is examples/hello (mode "") or a fake sidecar of mode.
func ratioPlugin(b *testing.B, id, mode string) *Plugin {
	b.Helper()
	points := []extproto.HookPoint{extproto.InputReceive}
	if mode != "" {
		p, _ := fakePluginB(b, id)
		p.Runtime.Env = map[string]string{envFakeMode: mode}
		p.Intercepts = points
		return p
	}
	src := examplestest.Source(b, "hello")
	return &Plugin{
		ID:      id,
		Root:    src,
		Version: "0.1.0",
		Runtime: manifest.Runtime{
			Command:      filepath.Join(src, "bin", "hello"),
			Intercepts:   append(points, extproto.SessionStart),
			Capabilities: []extproto.Capability{extproto.CapInterceptors, extproto.CapUI},
		},
	}
}

// rawEchoChild is the floor: a child echoing newline-framed lines.
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

// interceptRatioLoop alternates blocks of raw echoes and calls of call.
func interceptRatioLoop(b *testing.B, raw *rawEchoChild, pids []int, call func()) {
	const block = 128
	// cpuOf is this process's CPU time and the side's children's.
	cpuOf := func(side int) (self, child time.Duration) {
		if side == 0 {
			return schedstat(b, "self"), schedstat(b, strconv.Itoa(raw.cmd.Process.Pid))
		}
		for _, p := range pids {
			child += schedstat(b, strconv.Itoa(p))
		}
		return schedstat(b, "self"), child
	}
	var wall, cpu, childCPU [2]time.Duration
	var blocks [2]int
	side, inBlock := 0, 0
	start := time.Now()
	selfStart, childStart := cpuOf(0)
	b.ReportAllocs()
	for b.Loop() {
		if side == 0 {
			raw.roundTrip(b)
		} else {
			call()
		}
		if inBlock++; inBlock < block {
			continue
		}
		wall[side] += time.Since(start)
		self, child := cpuOf(side)
		cpu[side] += self - selfStart + child - childStart
		childCPU[side] += child - childStart
		blocks[side]++
		side, inBlock = 1-side, 0
		start = time.Now()
		selfStart, childStart = cpuOf(side)
	}
	if blocks[0] == 0 || blocks[1] == 0 {
		return
	}
	per := func(d time.Duration, side int) float64 {
		return float64(d.Nanoseconds()) / 1e3 / float64(blocks[side]*block)
	}
	rawWall, wall1 := per(wall[0], 0), per(wall[1], 1)
	rawCPU, cpu1 := per(cpu[0], 0), per(cpu[1], 1)
	b.ReportMetric(rawWall, "raw-µs/call")
	b.ReportMetric(wall1, "µs/call")
	b.ReportMetric(wall1/rawWall, "wall-ratio")
	b.ReportMetric(rawCPU, "raw-cpu-µs/call")
	b.ReportMetric(cpu1, "cpu-µs/call")
	b.ReportMetric(cpu1/rawCPU, "cpu-ratio")
	rawChild, child1 := per(childCPU[0], 0), per(childCPU[1], 1)
	b.ReportMetric(rawChild, "raw-child-cpu-µs/call")
	b.ReportMetric(child1, "sidecar-cpu-µs/call")
	b.ReportMetric(child1/rawChild, "sidecar-cpu-ratio")
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
		if f := strings.Fields(string(data)); len(f) > 0 {
			ns, _ := strconv.ParseInt(f[0], 10, 64)
			total += time.Duration(ns)
		}
	}
	return total
}

// BenchmarkContentRatio is an 8 MiB input.receive payload to a sidecar on
// our SDK that reads it (content refs paged through host/content/read,
// verified, the text decoded), interleaved op by op with its floor: one
// SHA-256 plus one base64 encode and decode of the same bytes into reused
// buffers. CPU counts this process and the sidecar.
func BenchmarkContentRatio(b *testing.B) {
	p, _ := fakePluginB(b, "reader")
	p.Runtime.Env = map[string]string{envFakeMode: "sdk-text"}
	p.Intercepts = []extproto.HookPoint{extproto.InputReceive}
	m := NewManager(ManagerOptions{SessionID: "bench", WorkspaceRoot: "/"})
	defer m.Close()
	g, err := m.Load(context.Background(), []*Plugin{p})
	if err != nil {
		b.Fatal(err)
	}
	if len(g.Sidecars) != 1 {
		b.Fatalf("sidecar did not start: %q", g.Warnings)
	}
	pid := strconv.Itoa(g.Sidecars[0].proc.tree.Pid())
	// Lines of code, as long as fits one 8 MiB content object once
	// JSON-encoded (the newlines and quotes are escaped).
	line := "\tfmt.Println(\"hello, world\") // a line of code\n"
	lines := (8<<20 - 64) / (len(line) + 4)
	text := strings.Repeat(line, lines)
	payload := &extproto.InputReceivePayload{Text: text}
	raw := []byte(text)
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(text)))
	dec := make([]byte, len(text))
	floor := func() {
		sha256.Sum256(raw)
		base64.StdEncoding.Encode(enc, raw)
		if _, err := base64.StdEncoding.Decode(dec, enc); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	cpuNow := func() time.Duration { return schedstat(b, "self") + schedstat(b, pid) }
	var wall, cpu [2]time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0, c0 := time.Now(), cpuNow()
		floor()
		t1, c1 := time.Now(), cpuNow()
		out, err := g.Intercept(ctx, extproto.InputReceive, payload)
		if err != nil || out.Blocked || len(out.Rulings) != 1 || out.Rulings[0].Err != nil {
			b.Fatalf("%v %+v", err, out)
		}
		t2, c2 := time.Now(), cpuNow()
		wall[0], wall[1] = wall[0]+t1.Sub(t0), wall[1]+t2.Sub(t1)
		cpu[0], cpu[1] = cpu[0]+c1-c0, cpu[1]+c2-c1
	}
	n := float64(b.N)
	b.ReportMetric(float64(wall[0].Microseconds())/n/1e3, "floor-ms/op")
	b.ReportMetric(float64(wall[1].Microseconds())/n/1e3, "read-ms/op")
	b.ReportMetric(float64(wall[1])/float64(wall[0]), "wall-ratio")
	b.ReportMetric(float64(cpu[0].Microseconds())/n/1e3, "floor-cpu-ms/op")
	b.ReportMetric(float64(cpu[1].Microseconds())/n/1e3, "read-cpu-ms/op")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "cpu-ratio")
}
