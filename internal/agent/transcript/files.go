package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Ext is the extension of every transcript file.
const Ext = ".jsonl"

// ValidID reports whether id can name a session on disk: letters, digits,
// '-' and '_' only, so it can never spell a path.
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

func checkID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("invalid session id %q", id)
	}
	return nil
}

// LivePath is the file records of session id are appended to.
func LivePath(dir, id string) string { return filepath.Join(dir, id+Ext) }

func segmentPath(dir, id string, n int) string {
	return filepath.Join(dir, id+"."+strconv.Itoa(n)+Ext)
}

func lockPath(dir, id string) string { return filepath.Join(dir, id+".lock") }

// segments returns the numbers of id's archived segments, ascending.
// Rotation numbers them 1, 2, 3... without gaps, so probing names stays
// cheap however many other sessions share the directory.
func segments(dir, id string) ([]int, error) {
	var ns []int
	for n := 1; ; n++ {
		_, err := os.Stat(segmentPath(dir, id, n))
		if errors.Is(err, os.ErrNotExist) {
			return ns, nil
		}
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
}

// List returns the ids of every session stored in dir, sorted. A missing
// dir holds none.
func List(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		base, ok := strings.CutSuffix(name, Ext)
		if !ok || e.IsDir() {
			continue
		}
		// Archived segments (<id>.<n>.jsonl) name a session as well, in
		// case a crash came between rotation's rename and create.
		id, _, _ := strings.Cut(base, ".")
		if ValidID(id) {
			seen[id] = true
		}
	}
	ids := make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// Exists reports whether session id has any file in dir.
func Exists(dir, id string) bool {
	if !ValidID(id) {
		return false
	}
	if _, err := os.Stat(LivePath(dir, id)); err == nil {
		return true
	}
	ns, _ := segments(dir, id)
	return len(ns) > 0
}

// Remove deletes every file of session id. It fails while another log
// holds the session's lock.
func Remove(dir, id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	unlock, err := lock(dir, id)
	if err != nil {
		return err
	}
	defer unlock()
	ns, err := segments(dir, id)
	if err != nil {
		return err
	}
	paths := []string{LivePath(dir, id), titlePath(dir, id)}
	for _, n := range ns {
		paths = append(paths, segmentPath(dir, id, n))
	}
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return removeLock(lockPath(dir, id), unlock)
}

// syncDir makes renames and creations in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !syncUnsupported(err) {
		return err
	}
	return nil
}
