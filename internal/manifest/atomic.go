package manifest

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that a reader, or a crash at
// any instant, sees either the old file or the new one, never a mix: the
// data goes to a temporary file in the same directory, is flushed to disk,
// renamed over path, and the directory itself is flushed so the rename
// survives a power loss.
func writeFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: flush: %w", path, unwrapPath(err))
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err = replaceFile(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err = syncDir(dir); err != nil {
		return fmt.Errorf("write %s: flush directory: %w", path, err)
	}
	return nil
}

// syncDir flushes a directory's entries (a rename lives there).
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return unwrapPath(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !syncUnsupported(err) {
		return unwrapPath(err)
	}
	return nil
}
