//go:build unix

package manifest

import (
	"errors"
	"syscall"
)

// syncUnsupported reports errors from fsync on a directory that mean the
// file system cannot do it, not that data was lost.
func syncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
