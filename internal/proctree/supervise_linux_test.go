package proctree

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestStatPPID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		stat string
		ppid int
		ok   bool
	}{
		{"42 (sleep) S 7 42 42 0 -1", 7, true},
		{"42 (a b) c) R 1 2 3", 1, true}, // comm with a space and a ')'
		{"42 ()) Z 0 0", 0, true},
		{"42 (x) S", 0, false},
		{"42 (x) S -5 1", 0, false},
		{"42 (x) S y 1", 0, false},
		{"no parenthesis 1 2", 0, false},
		{"", 0, false},
	}
	for _, tc := range tests {
		ppid, ok := statPPID([]byte(tc.stat))
		if ppid != tc.ppid || ok != tc.ok {
			t.Errorf("statPPID(%q) = %d, %v; want %d, %v", tc.stat, ppid, ok, tc.ppid, tc.ok)
		}
	}
	// This process's own line names our parent.
	raw, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	if ppid, ok := statPPID(raw); !ok || ppid != os.Getppid() {
		t.Fatalf("own stat: ppid %d, %v; want %d", ppid, ok, os.Getppid())
	}
}

// FuzzStatPPID: a process names itself (comm, up to 16 bytes of its
// choice, parentheses and spaces included); whatever it picks, the parent
// pid is read right, and no input makes the parser panic.
func FuzzStatPPID(f *testing.F) {
	f.Add("sleep", 7, []byte("42 (sleep) S 7 1"))
	f.Add(") S 99 (", 1, []byte("1 () S 0"))
	f.Add("a\nb", 123456, []byte(")))"))
	f.Fuzz(func(t *testing.T, comm string, ppid int, raw []byte) {
		_, _ = statPPID(raw)
		if len(comm) > 16 || ppid < 0 {
			return
		}
		line := fmt.Sprintf("4242 (%s) S %d 4242 4242 0 -1 4194560 110 0 0 0\n", comm, ppid)
		if got, ok := statPPID([]byte(line)); !ok || got != ppid {
			t.Fatalf("statPPID(%q) = %d, %v; want %d", line, got, ok, ppid)
		}
	})
}

// BenchmarkSupervisorCost measures what owning a tree adds to a program
// start against a plain spawn of the same program in the same run,
// interleaved so all see the same machine, for one program and for 16
// started at once, both ways Linux owns a tree: under a supervisor and as
// the init of a PID namespace (skipped where the kernel refuses one): the
// time from spawn until every program has run far enough to write its
// first byte, and the teardown (stdin closed until every one is reaped).
// It also reports the memory of a supervisor next to that of the sidecar
// it holds, resident and proportional (Pss: the binary's pages shared
// among every copy), as a mean per program; a namespace has no process
// of its own, so its sidecar's Pss is all it costs.
func BenchmarkSupervisorCost(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	env := append(os.Environ(), envMode+"=ping")
	_, nsErr := startIn(Command{Path: exe, Env: append(os.Environ(), envMode+"=exit3")}, modeNamespace)
	withNS := nsErr == nil
	for _, n := range []int{1, 16} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			var direct, supervised, namespaced, directEnd, supervisedEnd, namespacedEnd time.Duration
			var supMem, sideMem, nsSideMem memKiB
			for b.Loop() {
				d, de, _, _ := benchStartAll(b, n, func() *benchProc { return startDirect(b, exe, env) })
				s, se, sup, side := benchStartAll(b, n, func() *benchProc { return startOwnedBench(b, modeSupervisor, exe, env) })
				direct, directEnd = direct+d, directEnd+de
				supervised, supervisedEnd = supervised+s, supervisedEnd+se
				supMem, sideMem = supMem.add(sup), sideMem.add(side)
				if withNS {
					s, se, _, side := benchStartAll(b, n, func() *benchProc { return startOwnedBench(b, modeNamespace, exe, env) })
					namespaced, namespacedEnd = namespaced+s, namespacedEnd+se
					nsSideMem = nsSideMem.add(side)
				}
			}
			runs := float64(b.N)
			per := float64(b.N * n)
			b.ReportMetric(float64(direct.Microseconds())/runs, "direct-start-µs")
			b.ReportMetric(float64(supervised.Microseconds())/runs, "supervised-start-µs")
			b.ReportMetric(float64(supervised)/float64(direct), "start-ratio")
			b.ReportMetric(float64(directEnd.Microseconds())/runs, "direct-teardown-µs")
			b.ReportMetric(float64(supervisedEnd.Microseconds())/runs, "supervised-teardown-µs")
			b.ReportMetric(float64(supervisedEnd)/float64(directEnd), "teardown-ratio")
			b.ReportMetric(float64(supMem.rss)/per, "supervisor-RSS-KiB")
			b.ReportMetric(float64(supMem.private)/per, "supervisor-private-KiB")
			b.ReportMetric(float64(supMem.pss)/per, "supervisor-PSS-KiB")
			b.ReportMetric(float64(sideMem.rss)/per, "sidecar-RSS-KiB")
			b.ReportMetric(float64(sideMem.pss)/per, "sidecar-PSS-KiB")
			if withNS {
				b.ReportMetric(float64(namespaced.Microseconds())/runs, "ns-start-µs")
				b.ReportMetric(float64(namespaced)/float64(direct), "ns-start-ratio")
				b.ReportMetric(float64(namespacedEnd)/float64(directEnd), "ns-teardown-ratio")
				b.ReportMetric(float64(nsSideMem.pss)/per, "ns-sidecar-PSS-KiB")
			}
		})
	}
}

func benchPipes(b *testing.B) (inR, inW, outR, outW *os.File) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err = os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	return inR, inW, outR, outW
}

// benchProc is a started benchmark program: its stdin to close, its
// stdout to read the first byte from, its wait and, when supervised, its
// supervisor's and its own pid for their memory.
type benchProc struct {
	inW, outR      *os.File
	wait           func()
	supPID, ownPID int
}

func startDirect(b *testing.B, exe string, env []string) *benchProc {
	inR, inW, outR, outW := benchPipes(b)
	cmd := exec.Command(exe)
	cmd.Env, cmd.Stdin, cmd.Stdout = env, inR, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	closeAll(inR, outW)
	return &benchProc{inW: inW, outR: outR, wait: func() { _ = cmd.Wait() }}
}

// startOwnedBench starts exe owned the way own says; a namespace's
// program is its own "supervisor" process (supPID -1: no memory of its
// own).
func startOwnedBench(b *testing.B, own mode, exe string, env []string) *benchProc {
	inR, inW, outR, outW := benchPipes(b)
	t, err := startIn(Command{Path: exe, Env: env, Stdin: inR, Stdout: outW, Stderr: os.Stderr}, own)
	closeAll(inR, outW)
	if err != nil {
		b.Fatal(err)
	}
	sup := -1
	if t.sys.lifeline != nil {
		sup = t.sys.cmd.Process.Pid
	}
	return &benchProc{inW: inW, outR: outR, wait: func() { <-t.Exited() }, supPID: sup, ownPID: t.Pid()}
}

// benchStartAll starts n programs at once with start and returns the
// time until each has written its first byte, the teardown time, and
// the summed memory of the supervisors and of the programs (zero for
// unsupervised ones).
func benchStartAll(b *testing.B, n int, start func() *benchProc) (up, down time.Duration, sup, side memKiB) {
	procs := make([]*benchProc, n)
	var wg sync.WaitGroup
	began := time.Now()
	for i := range n {
		wg.Go(func() {
			p := start()
			if _, err := p.outR.Read(make([]byte, 1)); err != nil {
				b.Error(err)
			}
			procs[i] = p
		})
	}
	wg.Wait()
	up = time.Since(began)
	if b.Failed() {
		b.FailNow()
	}
	for _, p := range procs {
		if p.supPID > 0 {
			sup = sup.add(memOf(p.supPID))
		}
		if p.supPID != 0 {
			side = side.add(memOf(p.ownPID))
		}
	}
	began = time.Now()
	for _, p := range procs {
		wg.Go(func() {
			closeAll(p.inW)
			p.wait()
			closeAll(p.outR)
		})
	}
	wg.Wait()
	return up, time.Since(began), sup, side
}

// memKiB is a process's resident memory and the part of it no other
// process shares (the binary's pages are shared with the host).
type memKiB struct{ rss, private, pss int64 }

func (m memKiB) add(o memKiB) memKiB {
	return memKiB{m.rss + o.rss, m.private + o.private, m.pss + o.pss}
}

// memOf reads pid's memory from /proc/<pid>/smaps_rollup.
func memOf(pid int) memKiB {
	raw, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	var m memKiB
	for line := range strings.Lines(string(raw)) {
		k, v, _ := strings.Cut(line, ":")
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "Rss":
			m.rss = n
		case "Pss":
			m.pss = n
		case "Private_Clean", "Private_Dirty":
			m.private += n
		}
	}
	return m
}
