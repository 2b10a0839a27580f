//go:build !unix && !windows

package exthost

import (
	"errors"
	"time"
)

// selfCPU is not measured here: the benchmarks report 0 CPU time.
func selfCPU() time.Duration { return 0 }

// setsid has no meaning here; the tests that need it run on Linux only.
func setsid() error { return errors.ErrUnsupported }
