//go:build !unix

package sdk

import "os"

// pollableStdio returns f: outside Unix the standard streams are used as
// they are.
func pollableStdio(f *os.File) *os.File { return f }
