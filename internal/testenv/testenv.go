// Package testenv holds what tests share about the machine they run on:
// how much longer than nominal a fixed budget or deadline must be there,
// and a helper process's pid as the machine names it (Pid).
// It imports nothing of rx-bridge; only tests use it.
//
// A test waits for the event it needs, bounded by its own deadline. A
// fixed budget stays only where the test exercises that budget (a
// product bound that must end, e.g. a generation's start budget with a
// stalled runtime in it), and then it is Scale(d): on a loaded machine
// (CI shares 2 cores; load averages of 20–30 were seen) the test runs
// with RX_TEST_TIMEOUT_SCALE set, e.g. 4, and the budget grows with it.
package testenv

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// ScaleVar names the environment variable holding the factor.
const ScaleVar = "RX_TEST_TIMEOUT_SCALE"

// Factor is RX_TEST_TIMEOUT_SCALE, a number of at least 1; 1 when it is
// unset or not such a number.
func Factor() float64 {
	f, err := strconv.ParseFloat(os.Getenv(ScaleVar), 64)
	if err != nil || f < 1 {
		return 1
	}
	return f
}

// Scale is d times Factor.
func Scale(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Factor())
}

// UntilDeadline is what is left of t's own deadline less a margin for
// its cleanup (a 10 minute bound without -timeout): the bound of a
// budget a test does not exercise, so it waits for the event and only
// the test's deadline ends the wait. It is never less than Scale(d).
func UntilDeadline(t testing.TB, d time.Duration) time.Duration {
	left := 10 * time.Minute
	if dl, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if at, ok := dl.Deadline(); ok {
			left = time.Until(at) - 5*time.Second
		}
	}
	return max(left, Scale(d))
}

// Pid is this process's pid as /proc shows it: the machine's number. A
// program proctree owns on Linux runs as the init of a PID namespace of
// its own, where getpid(2) says 1 (and its children get small numbers of
// that namespace), while /proc, the machine's, names it by its pid
// outside. A test helper that tells the test its pid says this one.
// Elsewhere, and where /proc cannot be read, it is os.Getpid().
func Pid() int {
	if self, err := os.Readlink("/proc/self"); err == nil {
		if pid, err := strconv.Atoi(self); err == nil {
			return pid
		}
	}
	return os.Getpid()
}
