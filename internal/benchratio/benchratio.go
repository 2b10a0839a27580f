// Package benchratio measures a benchmark's subject against its floor in
// the same loop (docs/PERFORMANCE.md): the two run alternately, in blocks,
// inside one b.Loop, so both see the same machine noise, and the figures
// reported are each side's wall and CPU time per call and their ratios.
// CPU time is this process's plus that of the child processes named for
// each side, read from the kernel's per-thread schedstat in nanoseconds;
// where there is no /proc schedstat the benchmark is skipped. It is a
// test helper: only _test.go files import it.
package benchratio

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Side is one side of a comparison: Call does one call (one unit of the
// per-call figures), PIDs are the child processes whose CPU it spends.
type Side struct {
	Call func()
	PIDs []int
}

// Interleave alternates blocks of block calls of floor and subject in one
// b.Loop and reports, per call: floor-µs/call, µs/call, wall-ratio,
// floor-cpu-µs/call, cpu-µs/call, cpu-ratio, and, when a side has child
// processes, floor-child-cpu-µs/call, child-cpu-µs/call and
// child-cpu-ratio. Nothing is reported when the loop was too short for a
// block of each.
func Interleave(b *testing.B, block int, floor, subject Side) {
	b.Helper()
	sides := [2]Side{floor, subject}
	cpuOf := func(side int) (self, child time.Duration) {
		for _, p := range sides[side].PIDs {
			child += Schedstat(b, strconv.Itoa(p))
		}
		return Schedstat(b, "self"), child
	}
	var wall, cpu, childCPU [2]time.Duration
	var blocks [2]int
	side, inBlock := 0, 0
	b.ReportAllocs()
	start := time.Now()
	selfStart, childStart := cpuOf(0)
	for b.Loop() {
		sides[side].Call()
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
	report := func(unit string, d [2]time.Duration, ratio string) {
		f, s := per(d[0], 0), per(d[1], 1)
		b.ReportMetric(f, "floor-"+unit)
		b.ReportMetric(s, unit)
		b.ReportMetric(s/f, ratio)
	}
	report("µs/call", wall, "wall-ratio")
	report("cpu-µs/call", cpu, "cpu-ratio")
	if len(floor.PIDs) > 0 && len(subject.PIDs) > 0 {
		report("child-cpu-µs/call", childCPU, "child-cpu-ratio")
	}
}

// Schedstat sums the on-CPU nanoseconds of every thread of process pid
// ("self" for this one). It skips b where the kernel has no schedstat.
func Schedstat(b testing.TB, pid string) time.Duration {
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
