//go:build !unix

package sdk

import "os"

// pollableStdio returns f: outside Unix the standard streams are used as
// they are.
func pollableStdio(f *os.File) *os.File { return f }

// blockingStdin returns f, as it is.
func blockingStdin(f *os.File) *os.File { return f }
