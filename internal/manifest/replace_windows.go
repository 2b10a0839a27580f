package manifest

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// Windows error codes a rename over a file another process has open
// returns (antivirus scanners and indexers open new files briefly), and
// an open of a file while a rename replaces it.
const (
	errorAccessDenied     syscall.Errno = 5
	errorSharingViolation syscall.Errno = 32
)

// replaceFile renames from over to. os.Rename replaces an existing file on
// Windows (MoveFileEx with MOVEFILE_REPLACE_EXISTING) but fails while
// another process has to open without delete sharing; such opens are
// brief, so the rename is retried for up to about two seconds.
func replaceFile(from, to string) error {
	return retry(func() error { return os.Rename(from, to) })
}

// readReplaced reads a file writeFileAtomic replaces. While the rename
// replaces it, Windows refuses to open it (sharing violation, or access
// denied while the old file is being deleted), so the read is retried as
// the rename is.
func readReplaced(path string) (data []byte, err error) {
	err = retry(func() error {
		data, err = os.ReadFile(path)
		return err
	})
	return data, err
}

// retry calls op until it succeeds, fails for another reason, or about
// two seconds have passed.
func retry(op func() error) error {
	err := op()
	for delay := 5 * time.Millisecond; err != nil && transient(err) && delay < 2*time.Second; delay *= 2 {
		time.Sleep(delay)
		err = op()
	}
	return err
}

func transient(err error) bool {
	return errors.Is(err, errorAccessDenied) || errors.Is(err, errorSharingViolation)
}
