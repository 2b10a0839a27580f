//go:build !unix

package manifest

import (
	"errors"
	"os"
)

// Without flock there is no lock this package trusts, so writes refuse
// rather than risk two writers losing a record.
func tryLock(*os.File) (bool, error) {
	return false, errors.New("advisory file locking is not implemented on this platform")
}

func unlock(*os.File) error { return nil }

func syncUnsupported(error) bool { return true }
