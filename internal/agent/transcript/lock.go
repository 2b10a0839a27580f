package transcript

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/gofrs/flock"
)

// lock takes the session's exclusive advisory lock without waiting
// (flock(2) on unix, LockFileEx on Windows, through gofrs/flock): a
// session is written by one process at a time, and a second one is told
// so rather than left to interleave lines. The kernel drops the lock when
// the holder dies, so a crash never leaves a session locked.
func lock(dir, id string) (func(), error) {
	l := flock.New(lockPath(dir, id), flock.SetPermissions(0o600))
	for {
		ok, err := l.TryLock()
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return nil, err
		case !ok:
			return nil, fmt.Errorf("session %s: %w", id, ErrLocked)
		}
		return func() { _ = l.Unlock() }, nil
	}
}
