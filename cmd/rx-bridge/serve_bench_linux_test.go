package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/benchratio"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// The `rx-bridge serve` end-to-end benchmarks of docs/PERFORMANCE.md
// (issue 20): a real binary, built with `go build` as a user gets it,
// spoken to over its stdio by an LSP client, its sidecars real
// examples/ plugins.

// benchServe is one `rx-bridge serve` process with an initialized
// client.
type benchServe struct {
	c   *lspclient.Client
	pid int
	// session is the open session prompts go to; prompts counts those
	// it has had.
	session string
	prompts int
}

// startBenchServe starts bin as `rx-bridge serve` on home and waits for
// its first generation (its sidecars are started by then).
func startBenchServe(b *testing.B, bin, home string) *benchServe {
	b.Helper()
	cmd := exec.Command(bin, "serve", "--home", home, "--workspace", b.TempDir())
	logs := &lockedWriter{b: &strings.Builder{}}
	cmd.Stderr = logs
	c, err := lspclient.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		if b.Failed() {
			b.Logf("rx-bridge serve stderr:\n%s", logs.String())
		}
	})
	initialized(b, c, clientCaps(nil, nil))
	return &benchServe{c: c, pid: cmd.Process.Pid}
}

// call is one LSP request that must succeed.
func (s *benchServe) call(b *testing.B, method string, params, result any) {
	if err := s.c.Call(ctxT(b), method, params, result); err != nil {
		b.Fatalf("%s: %v", method, err)
	}
}

// promptsPerSession bounds a session's history: a longer one would make
// each prompt's provider request grow with the loop (and the echo
// model's 8k context would start compacting).
const promptsPerSession = 64

// prompt is one turn of rx/session/prompt, in a fresh session every
// promptsPerSession turns.
func (s *benchServe) prompt(b *testing.B) {
	if s.session == "" || s.prompts == promptsPerSession {
		if s.session != "" {
			s.call(b, "rx/session/close", map[string]string{"sessionId": s.session}, nil)
		}
		var ref struct{ SessionID string }
		s.call(b, "rx/session/new", map[string]string{"model": echoSmall}, &ref)
		s.session, s.prompts = ref.SessionID, 0
	}
	s.prompts++
	var r promptResult
	s.call(b, "rx/session/prompt", map[string]any{"sessionId": s.session, "prompt": "hi"}, &r)
	if r.StopReason != "end_turn" || r.Text != "hi" {
		b.Fatalf("prompt = %+v", r)
	}
}

// models is rx/models: a round trip through the LSP stack that no
// plugin takes part in.
func (s *benchServe) models(b *testing.B) {
	var res struct{ Models []json.RawMessage }
	s.call(b, "rx/models", nil, &res)
	if len(res.Models) == 0 {
		b.Fatal("rx/models listed no model")
	}
}

// descendants are the processes below pid (its sidecars, and whatever
// supervises or runs under them), read from the kernel's children lists.
func descendants(pid int) []int {
	var out []int
	paths, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(raw)) {
			if child, err := strconv.Atoi(f); err == nil {
				out = append(out, child)
				out = append(out, descendants(child)...)
			}
		}
	}
	return out
}

// benchTree is a serve process's tree: the sidecars' supervisors (this
// binary, re-executed) and the plugin programs they run; nsInits are the
// sidecars that run as the init of a PID namespace of their own, which
// have no supervisor (proctree's namespace mode).
type benchTree struct {
	supervisors, sidecars, nsInits []int
}

// all is every process of the tree below serve.
func (t benchTree) all() []int { return append(append([]int(nil), t.supervisors...), t.sidecars...) }

// treeOf sorts the descendants of pid, a serve run from bin, and checks
// that want sidecars run.
func treeOf(b *testing.B, bin string, pid, want int) benchTree {
	b.Helper()
	self, err := filepath.EvalSymlinks(bin)
	if err != nil {
		b.Fatal(err)
	}
	var t benchTree
	for _, p := range descendants(pid) {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", p))
		switch {
		case err != nil:
			b.Fatalf("process %d of serve %d: %v", p, pid, err)
		case exe == self:
			t.supervisors = append(t.supervisors, p)
		default:
			t.sidecars = append(t.sidecars, p)
			if nsInit(p) {
				t.nsInits = append(t.nsInits, p)
			}
		}
	}
	if len(t.sidecars) != want {
		b.Fatalf("serve %d runs %d sidecars %v (supervisors %v), want %d", pid, len(t.sidecars), t.sidecars, t.supervisors, want)
	}
	return t
}

// nsInit: pid is the init of a PID namespace below ours (the NSpid line
// of its status lists more than one pid, the innermost 1).
func nsInit(pid int) bool {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for line := range strings.Lines(string(raw)) {
		if ns, ok := strings.CutPrefix(line, "NSpid:"); ok {
			ids := strings.Fields(ns)
			return len(ids) > 1 && ids[len(ids)-1] == "1"
		}
	}
	return false
}

// memKiB is a field of pid's memory in KiB: VmRSS from
// /proc/<pid>/status, Pss from /proc/<pid>/smaps_rollup (the resident
// pages with each shared page split among its sharers).
func memKiB(b *testing.B, pid int, file, field string) int64 {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		b.Skipf("no /proc/%d/%s: %v", pid, file, err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				b.Fatalf("/proc/%d/%s: %s %q: %v", pid, file, field, v, err)
			}
			return kib
		}
	}
	b.Fatalf("/proc/%d/%s has no %s", pid, file, field)
	return 0
}

// rss and pss sum memKiB over pids.
func rss(b *testing.B, pids ...int) (kib int64) {
	for _, p := range pids {
		kib += memKiB(b, p, "status", "VmRSS")
	}
	return kib
}

func pss(b *testing.B, pids ...int) (kib int64) {
	for _, p := range pids {
		kib += memKiB(b, p, "smaps_rollup", "Pss")
	}
	return kib
}

// needProc skips b where there is no /proc to read CPU and RSS from.
func needProc(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("no /proc on this system")
	}
}

// installHelloAs installs examples/hello under the plugin id name.
func installHelloAs(b *testing.B, home, name string) {
	b.Helper()
	src := examplestest.Source(b, "hello")
	raw, err := os.ReadFile(filepath.Join(src, "reasonix-plugin.json"))
	if err != nil {
		b.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(raw, &man); err != nil {
		b.Fatal(err)
	}
	man["name"] = name
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.Link(filepath.Join(src, "bin", "hello"), filepath.Join(dir, "bin", "hello")); err != nil {
		b.Fatal(err)
	}
	out, _ := json.Marshal(man)
	if err := os.WriteFile(filepath.Join(dir, "reasonix-plugin.json"), out, 0o644); err != nil {
		b.Fatal(err)
	}
	installSource(b, home, dir)
}

// programCPU counts the calls of one side of a ratio benchmark and
// reports the CPU time each program of its serve tree spent per call
// over the loop: <prefix>serve-cpu-µs/call, <prefix><plugin
// program>-cpu-µs/call and <prefix>supervisors-cpu-µs/call.
type programCPU struct {
	prefix string
	pids   map[string][]int
	start  map[string]time.Duration
	calls  int
}

func newProgramCPU(b *testing.B, prefix string, serve int, tree benchTree) *programCPU {
	b.Helper()
	p := &programCPU{prefix: prefix, pids: map[string][]int{"serve": {serve}, "supervisors": tree.supervisors}, start: map[string]time.Duration{}}
	for _, pid := range tree.sidecars {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			b.Fatal(err)
		}
		p.pids[filepath.Base(exe)] = append(p.pids[filepath.Base(exe)], pid)
	}
	for name, pids := range p.pids {
		p.start[name] = p.cpu(b, pids)
	}
	return p
}

func (p *programCPU) cpu(b *testing.B, pids []int) (d time.Duration) {
	for _, pid := range pids {
		d += benchratio.Schedstat(b, strconv.Itoa(pid))
	}
	return d
}

// count wraps a side's call to count it.
func (p *programCPU) count(call func()) func() {
	return func() { p.calls++; call() }
}

func (p *programCPU) report(b *testing.B) {
	if p.calls == 0 {
		return
	}
	for name, pids := range p.pids {
		if len(pids) == 0 {
			continue
		}
		d := p.cpu(b, pids) - p.start[name]
		b.ReportMetric(float64(d.Nanoseconds())/1e3/float64(p.calls), p.prefix+name+"-cpu-µs/call")
	}
}

// BenchmarkServeRatio measures an LSP request to a real `rx-bridge serve`
// end to end, against its floor in the same loop (internal/benchratio:
// wall and CPU per request, CPU counting this client, serve and every
// sidecar). The request is rx/session/prompt ("hi") on the echo-provider
// model: no LSP request walks an intercept without more around it, and a
// prompt is the one whose only plugin work beyond the model is one
// input.receive walk. Each session takes promptsPerSession prompts, then
// the next prompt closes it and opens another (both sides alike; with
// hello, that session start is hello's session.start walk, its event and
// the two surfaces it publishes, 1/promptsPerSession of it per prompt).
//
//   - plugin: the floor is that prompt to a serve with echo-provider
//     only, the subject the same prompt to a serve that also has
//     examples/hello: the ratio is what one intercept (and its post-walk
//     event) adds to a prompt.
//   - lsp: the floor is rx/models, an LSP round trip no plugin takes
//     part in, the subject the prompt, both to the serve with hello: what
//     a prompt costs over the bare LSP stack.
//
// plugin also reports the CPU per prompt of each program of both trees
// (programCPU): serve, echo-provider, hello, the supervisors.
func BenchmarkServeRatio(b *testing.B) {
	needProc(b)
	bin := goBuild(b, examplestest.RepoRoot(b))
	bare := b.TempDir()
	examplestest.Install(b, bare, "echo-provider")
	withHello := b.TempDir()
	examplestest.Install(b, withHello, "echo-provider")
	examplestest.Install(b, withHello, "hello")
	floor := startBenchServe(b, bin, bare)
	subject := startBenchServe(b, bin, withHello)
	floorTree, subjectTree := treeOf(b, bin, floor.pid, 1), treeOf(b, bin, subject.pid, 2)
	floorPIDs := append([]int{floor.pid}, floorTree.all()...)
	subjectPIDs := append([]int{subject.pid}, subjectTree.all()...)
	b.Run("plugin", func(b *testing.B) {
		f := newProgramCPU(b, "floor-", floor.pid, floorTree)
		s := newProgramCPU(b, "", subject.pid, subjectTree)
		benchratio.Interleave(b, 16,
			benchratio.Side{Call: f.count(func() { floor.prompt(b) }), PIDs: floorPIDs},
			benchratio.Side{Call: s.count(func() { subject.prompt(b) }), PIDs: subjectPIDs})
		f.report(b)
		s.report(b)
	})
	b.Run("lsp", func(b *testing.B) {
		benchratio.Interleave(b, 16,
			benchratio.Side{Call: func() { subject.models(b) }, PIDs: subjectPIDs},
			benchratio.Side{Call: func() { subject.prompt(b) }, PIDs: subjectPIDs})
	})
}

// rssSidecars is how many sidecars BenchmarkServeRSS runs.
const rssSidecars = 16

// BenchmarkServeRSS reports the idle memory of a real `rx-bridge serve`
// once its first generation is up, in KiB, against a serve with no
// plugin in the same run (the floor): serve alone, then with
// rssSidecars copies of examples/hello installed under distinct ids,
// all started (the host starts every sidecar when it loads the
// generation, right after initialized). The loop only samples /proc:
// ns/op is meaningless. Metrics:
//
//   - floor-serve-KiB, serve-KiB: the serve process's VmRSS without and
//     with the sidecars; host-KiB/sidecar: their difference per sidecar;
//   - supervisor-KiB, sidecar-KiB: the mean VmRSS of a sidecar's
//     supervisor (rx-bridge re-executed, one per sidecar, none where the
//     sidecar is its PID namespace's init) and of a plugin program; most of it is the binary's pages, shared between the
//     copies, so supervisor-PSS-KiB and sidecar-PSS-KiB give the mean
//     proportional set (Pss: each shared page split among its sharers);
//   - tree-PSS-KiB/sidecar: the growth of the whole tree's Pss, serve
//     included, per sidecar: what each sidecar costs the machine;
//     beyond-plugin-PSS-KiB/sidecar: that growth less the plugin
//     program's own Pss, what the host spends per sidecar.
func BenchmarkServeRSS(b *testing.B) {
	needProc(b)
	bin := goBuild(b, examplestest.RepoRoot(b))
	bare := b.TempDir()
	full := b.TempDir()
	for i := range rssSidecars {
		installHelloAs(b, full, fmt.Sprintf("hello-%02d", i))
	}
	floor := startBenchServe(b, bin, bare)
	subject := startBenchServe(b, bin, full)
	floorTree := treeOf(b, bin, floor.pid, 0)
	tree := treeOf(b, bin, subject.pid, rssSidecars)
	// One supervisor per sidecar, but for a sidecar that is its PID
	// namespace's init (proctree's choice where the kernel allows it).
	if len(floorTree.supervisors) != 0 || len(tree.supervisors) != rssSidecars-len(tree.nsInits) {
		b.Fatalf("supervisors: %v without plugins, %v with %d sidecars (%d namespace inits)", floorTree.supervisors, tree.supervisors, rssSidecars, len(tree.nsInits))
	}
	var serve0, serve16, sup, side, supPSS, sidePSS, pss0, pss16 int64
	for b.Loop() {
		serve0, serve16 = rss(b, floor.pid), rss(b, subject.pid)
		sup, side = rss(b, tree.supervisors...), rss(b, tree.sidecars...)
		supPSS, sidePSS = pss(b, tree.supervisors...), pss(b, tree.sidecars...)
		pss0, pss16 = pss(b, floor.pid), pss(b, subject.pid)+supPSS+sidePSS
	}
	per := func(kib int64) float64 { return float64(kib) / rssSidecars }
	b.ReportMetric(float64(serve0), "floor-serve-KiB")
	b.ReportMetric(float64(serve16), "serve-KiB")
	b.ReportMetric(per(serve16-serve0), "host-KiB/sidecar")
	b.ReportMetric(per(sup), "supervisor-KiB")
	b.ReportMetric(per(side), "sidecar-KiB")
	b.ReportMetric(per(supPSS), "supervisor-PSS-KiB")
	b.ReportMetric(per(sidePSS), "sidecar-PSS-KiB")
	b.ReportMetric(per(pss16-pss0), "tree-PSS-KiB/sidecar")
	b.ReportMetric(per(pss16-pss0-sidePSS), "beyond-plugin-PSS-KiB/sidecar")
}
