//go:build !windows

package manifest

import "os"

// replaceFile renames from over to; rename(2) replaces atomically.
func replaceFile(from, to string) error { return os.Rename(from, to) }

// readReplaced reads a file writeFileAtomic replaces: a reader always
// sees the old file or the new one.
func readReplaced(path string) ([]byte, error) { return os.ReadFile(path) }
