//go:build !windows

package transcript

import "os"

// rename is os.Rename: rename(2) renames an open file too.
func rename(from, to string) error { return os.Rename(from, to) }

// removeLock deletes the lock file of a session while its lock is still
// held, so no other process can take the lock of a file about to vanish;
// the caller then releases it.
func removeLock(path string, _ func()) error { return os.Remove(path) }
