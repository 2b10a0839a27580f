//go:build !unix

package transcript

import "os"

// lock only creates the lock file where advisory locks are unavailable:
// one process per session is then the user's responsibility.
func lock(dir, id string) (func(), error) {
	f, err := os.OpenFile(lockPath(dir, id), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}

func syncUnsupported(error) bool { return false }
