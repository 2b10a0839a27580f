package exthost

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/benchratio"
)

// BenchmarkInterceptRatio interleaves, in blocks inside one loop, a raw
// newline echo to a child process (the floor) and one intercept walk of
// the case, so both see the same machine noise. It reports each side's
// wall and CPU time per call and the ratios to the floor (see
// internal/benchratio); ns-per-op is meaningless here. Cases:
//
//   - sdk: examples/hello, a sidecar on our SDK (answers continue);
//   - reasonix-sdk: a sidecar that behaves like the Reasonix Go SDK
//     (PROTOCOL_DETAILS §12: encoding/json, a goroutine per request);
//   - chain=4: four examples/hello sidecars in one chain;
//   - raw-chain=4: the floor of a chain, four raw echo children asked in
//     turn: what waking four processes in turn costs the OS against
//     waking one, with no protocol at all.
func BenchmarkInterceptRatio(b *testing.B) {
	for _, tc := range []struct {
		name string
		n    int
		mode string // fake sidecar mode, "" for examples/hello
	}{
		{"sdk", 1, ""},
		{"reasonix-sdk", 1, "reasonix-sdk"},
		{"chain=4", 4, ""},
		{"raw-chain=4", 4, "raw-chain"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.mode == "raw-chain" {
				rawChainRatio(b, tc.n)
				return
			}
			var plugins []*Plugin
			for i := range tc.n {
				plugins = append(plugins, ratioPlugin(b, fmt.Sprintf("p%d", i), tc.mode))
			}
			g := loadBench(b, plugins...)
			var pids []int
			for _, s := range g.Sidecars {
				pids = append(pids, s.proc.tree.Pid())
			}
			raw := startRawEcho(b)
			defer raw.close()
			payload := &extproto.InputReceivePayload{Text: "hello"}
			ctx := context.Background()
			benchratio.Interleave(b, 128,
				benchratio.Side{Call: func() { raw.roundTrip(b) }, PIDs: []int{raw.cmd.Process.Pid}},
				benchratio.Side{Call: func() {
					if _, err := g.Intercept(ctx, extproto.InputReceive, payload); err != nil {
						b.Fatal(err)
					}
				}, PIDs: pids})
		})
	}
}

// rawChainRatio is the raw-chain case: n raw echo children in turn
// against one.
func rawChainRatio(b *testing.B, n int) {
	raw := startRawEcho(b)
	defer raw.close()
	var chain []*rawEchoChild
	var pids []int
	for range n {
		r := startRawEcho(b)
		defer r.close()
		chain = append(chain, r)
		pids = append(pids, r.cmd.Process.Pid)
	}
	benchratio.Interleave(b, 128,
		benchratio.Side{Call: func() { raw.roundTrip(b) }, PIDs: []int{raw.cmd.Process.Pid}},
		benchratio.Side{Call: func() {
			for _, r := range chain {
				r.roundTrip(b)
			}
		}, PIDs: pids})
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
	return helloPlugin(b, id)
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
	g := loadBench(b, p)
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
	pid := g.Sidecars[0].proc.tree.Pid()
	benchratio.Interleave(b, 1, benchratio.Side{Call: floor}, benchratio.Side{Call: func() {
		out, err := g.Intercept(ctx, extproto.InputReceive, payload)
		if err != nil || out.Blocked || len(out.Rulings) != 1 || out.Rulings[0].Err != nil {
			b.Fatalf("%v %+v", err, out)
		}
	}, PIDs: []int{pid}})
}

// BenchmarkChainRatio is issue 32's chain row against its own floor in
// the same loop: one intercept walk of a generation with one
// examples/hello sidecar (the floor) and of a generation with four in
// one chain (the subject), both loaded at once and interleaved in blocks.
// A chain that cost each member what one sidecar costs alone would be
// 4×; what a chain adds beyond that is the wake-ups of colder sidecars.
func BenchmarkChainRatio(b *testing.B) {
	one := loadBench(b, ratioPlugin(b, "solo", ""))
	var plugins []*Plugin
	for i := range 4 {
		plugins = append(plugins, ratioPlugin(b, fmt.Sprintf("c%d", i), ""))
	}
	four := loadBench(b, plugins...)
	pidsOf := func(g *Generation) (pids []int) {
		for _, s := range g.Sidecars {
			pids = append(pids, s.proc.tree.Pid())
		}
		return pids
	}
	payload := &extproto.InputReceivePayload{Text: "hello"}
	ctx := context.Background()
	walk := func(g *Generation) func() {
		return func() {
			if _, err := g.Intercept(ctx, extproto.InputReceive, payload); err != nil {
				b.Fatal(err)
			}
		}
	}
	benchratio.Interleave(b, 128,
		benchratio.Side{Call: walk(one), PIDs: pidsOf(one)},
		benchratio.Side{Call: walk(four), PIDs: pidsOf(four)})
}

// BenchmarkContentIntercept is BenchmarkContentRatio's subject alone, so
// B/op and allocs/op are this process's exact cost of one 8 MiB
// input.receive read by an SDK sidecar (the sidecar's own, with
// RX_FAKE_ALLOCS set, are written by it; see docs/PERFORMANCE.md).
func BenchmarkContentIntercept(b *testing.B) {
	p, _ := fakePluginB(b, "reader")
	p.Runtime.Env = map[string]string{envFakeMode: "sdk-text"}
	p.Intercepts = []extproto.HookPoint{extproto.InputReceive}
	g := loadBench(b, p)
	line := "\tfmt.Println(\"hello, world\") // a line of code\n"
	payload := &extproto.InputReceivePayload{Text: strings.Repeat(line, (8<<20-64)/(len(line)+4))}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := g.Intercept(ctx, extproto.InputReceive, payload)
		if err != nil || out.Blocked || len(out.Rulings) != 1 || out.Rulings[0].Err != nil {
			b.Fatalf("%v %+v", err, out)
		}
	}
}
