//go:build !unix

package sdk

import "os"

// stdio returns f: outside Unix the standard streams are used as they
// are.
func stdio(f *os.File, nonblocking bool) *os.File { return f }
