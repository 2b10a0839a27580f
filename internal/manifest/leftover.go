package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// What a change of a home that died part-way leaves behind. Every change
// holds the home's lock, so when one starts no other is running and
// anything named like this was left by a process that died:
//   - plugins/.rx-bridge-*: an install's copy in progress, a replaced copy
//     set aside, or a removed copy on its way out;
//   - .plugin-packages.json.tmp-*: the records file being written.
//
// Only rx-bridge makes such names (Reasonix, which may share a home, names
// its temporary files .atomic-*.tmp), so a sweep never deletes another
// program's file in use.
const leftoverPrefix = ".rx-bridge-"

// tempPattern is the os.CreateTemp pattern of path's temporary file.
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// leftovers lists a home's leftovers.
func leftovers(home string) []string {
	var out []string
	add := func(dir, prefix string) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), prefix) {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
	}
	add(home, strings.TrimSuffix(tempPattern(RecordsFile), "*"))
	add(filepath.Join(home, PluginsDir), leftoverPrefix)
	return out
}

// sweep deletes a home's leftovers. Call it only with the lock held.
func sweep(home string) {
	for _, p := range leftovers(home) {
		removeTree(p)
	}
}

// removeTree deletes a leftover; tests replace it to die mid-delete.
var removeTree = os.RemoveAll

// Stray is something in a home that no record accounts for: nothing runs
// it, and nothing but rx-bridge's own clean-up or the user removes it.
type Stray struct {
	Path string
	// Name is set for a folder plugins/<Name> without a record, which
	// RemoveUnrecorded deletes; it is empty for a leftover and for a folder
	// whose name is no plugin name.
	Name string
	// Leftover marks what a change that died left; the next change
	// deletes it.
	Leftover bool
}

// Strays lists, sorted by path, the home's leftovers and the entries of
// plugins/ that are no record's copy. It holds the lock while it looks, so
// a change in progress is not mistaken for one that died.
func (s *Store) Strays() ([]Stray, error) {
	if _, err := os.Stat(s.Dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	release, err := lockHome(s.Dir)
	if err != nil {
		return nil, err
	}
	defer release()
	set, _, err := readRecords(s.Dir, false)
	if err != nil {
		return nil, err
	}
	var out []Stray
	for _, p := range leftovers(s.Dir) {
		out = append(out, Stray{Path: p, Leftover: true})
	}
	plugins := filepath.Join(s.Dir, PluginsDir)
	entries, _ := os.ReadDir(plugins)
	for _, e := range entries {
		p := filepath.Join(plugins, e.Name())
		if strings.HasPrefix(e.Name(), ".") || slices.ContainsFunc(set.records, func(r Record) bool { return host.samePath(r.Dir(), p) }) {
			continue
		}
		st := Stray{Path: p}
		if ValidateName(e.Name()) == nil {
			st.Name = e.Name()
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b Stray) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
