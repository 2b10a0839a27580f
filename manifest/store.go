package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Store changes one home's install records. Every change holds the home's
// lock across read, modify and write, and replaces the file atomically.
type Store struct {
	// Dir is the home directory.
	Dir string
}

// writeRecordsFile is replaced by tests to simulate a failed write.
var writeRecordsFile = writeFileAtomic

// ErrNotInstalled is wrapped by errors about a name with no record.
var ErrNotInstalled = errors.New("not installed")

// ErrExists is wrapped when installing a name that is already recorded
// without asking to replace it.
var ErrExists = errors.New("already installed")

// Records reads the home's records without locking: the file is only ever
// replaced whole, so a reader always sees one complete version.
func (s *Store) Records() ([]Record, error) {
	set, _, err := readRecords(s.Dir, false)
	return set.records, err
}

// update runs fn on the current records under the lock and writes the
// result if fn returns no error. fn may do other work that must be
// serialised with record changes (moving a plugin copy into place); the
// done it returns, if any, runs under the lock too, after the write, with
// the write's error, to finish or roll that work back.
func (s *Store) update(fn func(set *recordSet) (done func(writeErr error) error, err error)) error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("create home %s: %w", s.Dir, unwrapPath(err))
	}
	release, err := lockHome(s.Dir)
	if err != nil {
		return err
	}
	defer release()
	set, _, err := readRecords(s.Dir, false)
	if err != nil {
		return err
	}
	done, err := fn(&set)
	if err != nil {
		return err
	}
	data, err := encodeRecords(set)
	if err == nil {
		err = writeRecordsFile(filepath.Join(s.Dir, RecordsFile), data, 0o644)
	}
	if done != nil {
		return done(err)
	}
	return err
}

func (set *recordSet) find(name string) int {
	for i, r := range set.records {
		if r.Name == name {
			return i
		}
	}
	return -1
}

// SetEnabled sets a record's enabled flag and reports whether it changed.
func (s *Store) SetEnabled(name string, enabled bool) (changed bool, err error) {
	err = s.update(func(set *recordSet) (func(error) error, error) {
		i := set.find(name)
		if i < 0 {
			return nil, fmt.Errorf("plugin %q is %w in %s", name, ErrNotInstalled, s.Dir)
		}
		changed = set.records[i].Enabled != enabled
		set.records[i].Enabled = enabled
		return nil, nil
	})
	return changed, err
}

// Remove deletes a record and then, if the plugin was copied into this
// home, its copy. The record goes first: once it is gone nothing can start
// the plugin, so a crash in between leaves only an inert directory. A
// linked plugin's directory is never touched.
func (s *Store) Remove(name string) (Record, error) {
	var removed Record
	err := s.update(func(set *recordSet) (func(error) error, error) {
		i := set.find(name)
		if i < 0 {
			return nil, fmt.Errorf("plugin %q is %w in %s", name, ErrNotInstalled, s.Dir)
		}
		removed = set.records[i]
		set.records = append(set.records[:i], set.records[i+1:]...)
		return func(writeErr error) error {
			if writeErr != nil {
				return writeErr
			}
			copyDir := filepath.Join(s.Dir, PluginsDir, name)
			if removed.Dir() != copyDir {
				return nil
			}
			if err := os.RemoveAll(copyDir); err != nil {
				return fmt.Errorf("plugin %q was removed from the records, but its copy %s could not be deleted: %w", name, copyDir, unwrapPath(err))
			}
			return nil
		}, nil
	})
	if err != nil {
		return Record{}, err
	}
	return removed, nil
}
