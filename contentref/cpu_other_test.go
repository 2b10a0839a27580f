//go:build !linux

package contentref

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
