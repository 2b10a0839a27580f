//go:build !windows

package manifest

import "os"

// replaceFile renames from over to; rename(2) replaces atomically.
func replaceFile(from, to string) error { return os.Rename(from, to) }
