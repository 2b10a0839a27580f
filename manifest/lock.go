package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
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
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, unwrapPath(err))
	}
	deadline := time.Now().Add(lockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another rx-bridge has been changing plugins for over %s; try again when it is done", path, lockWait)
		}
		time.Sleep(delay)
	}
}
