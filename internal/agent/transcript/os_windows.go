package transcript

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Windows error codes a rename of a file another process has open returns
// (a reader of the transcript, an antivirus scanner or an indexer).
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
)

// rename is os.Rename, retried for up to about two seconds while another
// process has the file open without delete sharing: such opens are
// usually brief.
func rename(from, to string) error {
	err := os.Rename(from, to)
	for delay := 5 * time.Millisecond; err != nil && transient(err) && delay < 2*time.Second; delay *= 2 {
		time.Sleep(delay)
		err = os.Rename(from, to)
	}
	return err
}

func transient(err error) bool {
	return errors.Is(err, errorAccessDenied) || errors.Is(err, errorSharingViolation)
}

// removeLock releases the session's lock and deletes its lock file:
// Windows deletes no file that is open, and holding the lock keeps it
// open. Should another process take the lock in between, the file is
// open again and the delete fails, leaving that process its lock.
func removeLock(path string, unlock func()) error {
	unlock()
	return os.Remove(path)
}
