package manifest

import (
	"fmt"
	"os"
	"path/filepath"
)

// UpdateHomeFile replaces path, a file of the home dir (config.toml, a key
// file under keys/), under the home's lock: update gets the current
// content (nil when the file does not exist) and returns the new one. The
// write is atomic (a reader sees the old file or the new one) and the new
// file has mode perm from its creation on, so a key file is never
// readable by others, not even for an instant. The home and path's
// folder are created (0700) when missing.
func UpdateHomeFile(dir, path string, perm os.FileMode, update func(old []byte) ([]byte, error)) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, unwrapPath(err))
	}
	release, err := lockHome(dir)
	if err != nil {
		return err
	}
	defer release()
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	data, err := update(old)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), unwrapPath(err))
	}
	return writeFileAtomic(path, data, perm)
}
