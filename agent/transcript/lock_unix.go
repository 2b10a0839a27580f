//go:build unix

package transcript

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes the session's exclusive advisory lock without waiting: a
// session is written by one process at a time, and a second one is told
// so rather than left to interleave lines. The kernel drops the lock when
// the holder dies, so a crash never leaves a session locked.
func lock(dir, id string) (func(), error) {
	f, err := os.OpenFile(lockPath(dir, id), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("session %s: %w", id, ErrLocked)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func syncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}
