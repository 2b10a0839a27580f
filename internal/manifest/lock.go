package manifest

import (
	"errors"
	"fmt"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"
)

// LockFile is the advisory lock every change of a home's records holds for
// its whole read-modify-write, so two editors or CLIs installing at once
// both land.
const LockFile = "plugin-packages.lock"

// lockWait bounds how long a change waits for another one; a wedged holder
// becomes an error the user can act on instead of a hang.
var lockWait = 30 * time.Second

// lockHome takes the home's lock and returns its release.
func lockHome(home string) (func(), error) {
	path := filepath.Join(home, LockFile)
	l := flock.New(path, flock.SetPermissions(0o644))
	ok, err := waitLock(l, lockWait)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: another rx-bridge has been changing plugins for over %s; try again when it is done", path, lockWait)
	}
	return func() { _ = l.Unlock() }, nil
}

// waitLock takes l's lock, trying again with a growing pause (up to
// 50 ms) for at most wait; false means another holder kept it that long.
func waitLock(l *flock.Flock, wait time.Duration) (bool, error) {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ok, err := tryLock(l)
		if err != nil || ok || time.Now().After(deadline) {
			return ok, err
		}
		time.Sleep(delay)
	}
}

// tryLock takes l's exclusive advisory lock without blocking (flock(2) on
// unix, LockFileEx on Windows, through gofrs/flock, which opens the file
// and creates it if needed); it reports false when another process (or
// another open of the file) holds it. The kernel drops the lock when its
// holder dies, so a crash never leaves the home locked.
func tryLock(l *flock.Flock) (bool, error) {
	for {
		ok, err := l.TryLock()
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		return ok, err
	}
}
