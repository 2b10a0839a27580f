package main

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// scaled stretches a test's patience by the machine's load: CI shares two
// cores with other jobs, and a bound that holds on an idle machine (a
// process exits in a second, a turn ends in ten) may not at a load of 20.
// Tests wait for events; where a bound is unavoidable (how long to wait
// before calling a hang a hang) it goes through scaled. The factor is
// RX_TEST_SCALE (a number, default 1) times the one-minute load average
// per CPU when the system reports it (/proc/loadavg), never less than 1.
func scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * loadFactor())
}

func loadFactor() float64 {
	f := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("RX_TEST_SCALE"), 64); err == nil && v > 0 {
		f = v
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if fields := strings.Fields(string(b)); len(fields) > 0 {
			if load, err := strconv.ParseFloat(fields[0], 64); err == nil {
				if per := load / float64(runtime.NumCPU()); per > 1 {
					f *= per
				}
			}
		}
	}
	return f
}
