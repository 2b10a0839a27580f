package manifest

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
// result if fn returns no error. Before fn it sweeps what changes that died
// left behind (see leftoverPrefix). fn may do other work that must be
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
	sweep(s.Dir)
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

// Remove deletes a record and, if the plugin was copied into this home,
// its copy (see trash). A linked plugin's directory is never touched.
func (s *Store) Remove(name string) (Record, error) {
	var removed Record
	err := s.update(func(set *recordSet) (func(error) error, error) {
		i := set.find(name)
		if i < 0 {
			return nil, fmt.Errorf("plugin %q is %w in %s", name, ErrNotInstalled, s.Dir)
		}
		removed = set.records[i]
		set.records = slices.Delete(set.records, i, i+1)
		if !host.samePath(removed.Dir(), filepath.Join(s.Dir, PluginsDir, name)) {
			return nil, nil
		}
		return s.trash(name)
	})
	if err != nil {
		return Record{}, err
	}
	return removed, nil
}

// RemoveUnrecorded deletes a folder plugins/<name> that has no record
// (left by an older rx-bridge's interrupted remove, or copied there by
// hand), and returns its path.
func (s *Store) RemoveUnrecorded(name string) (string, error) {
	if err := ValidateName(name); err != nil {
		return "", err
	}
	dir := filepath.Join(s.Dir, PluginsDir, name)
	err := s.update(func(set *recordSet) (func(error) error, error) {
		if i := set.find(name); i >= 0 {
			return nil, fmt.Errorf("%s is the copy of the installed plugin %q now; remove the plugin instead", dir, name)
		}
		if _, err := os.Lstat(dir); err != nil {
			return nil, fmt.Errorf("plugin %q is %w in %s, and there is no folder %s", name, ErrNotInstalled, s.Dir, dir)
		}
		return s.trash(name)
	})
	return dir, err
}

// trash deletes plugins/<name> crash-safely: it is renamed to a leftover
// name (so from then on it is either whole under its own name or gone from
// it), the records are written, and only then is the renamed copy deleted.
// If the process dies while deleting, what is left is a leftover that
// doctor reports and the next change sweeps. The done it returns puts the
// copy back if the records could not be written.
func (s *Store) trash(name string) (func(error) error, error) {
	plugins := filepath.Join(s.Dir, PluginsDir)
	dir := filepath.Join(plugins, name)
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // an earlier remove died after moving it away
	}
	trash := filepath.Join(plugins, leftoverPrefix+"remove-"+name+"-"+rand.Text())
	if err := os.Rename(dir, trash); err != nil {
		return nil, fmt.Errorf("move %s aside to delete it: %w", dir, unwrapPath(err))
	}
	if err := syncDir(plugins); err != nil {
		return nil, errors.Join(fmt.Errorf("flush %s: %w", plugins, err), os.Rename(trash, dir))
	}
	return func(writeErr error) error {
		if writeErr != nil {
			return errors.Join(writeErr, os.Rename(trash, dir))
		}
		if err := removeTree(trash); err != nil {
			return fmt.Errorf("plugin %q is removed, but deleting its old copy %s failed: %w (the next install, remove, enable or disable tries again)", name, trash, unwrapPath(err))
		}
		return nil
	}, nil
}
