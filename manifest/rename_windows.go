package manifest

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Windows error codes a rename over a file another process has open
// returns (antivirus scanners and indexers open new files briefly).
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
)

// replaceFile renames from over to. os.Rename replaces an existing file on
// Windows (MoveFileEx with MOVEFILE_REPLACE_EXISTING) but fails while
// another process has to open without delete sharing; such opens are
// brief, so the rename is retried for up to about two seconds.
func replaceFile(from, to string) error {
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
