package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// maxGlobMatches bounds one glob so a pattern like */*/*/* over a large tree
// cannot stall an install.
const maxGlobMatches = 10000

// checkDisk is the on-disk half of the path rule: every declared path that
// exists must resolve, through symlinks, inside the symlink-resolved root,
// and themes must be regular files. A path that does not exist yet is only a
// warning (appended to m.Warnings), as in Reasonix. It applies to legacy
// manifests too: a symlink out of the root is never what the user reviewed.
func (m *Manifest) checkDisk(root, realRoot string) problems {
	var errs []Problem
	var themes []string
	for _, kind := range pathKinds {
		for _, p := range *m.Resources.list(kind) {
			where := m.origins.of(kind, p)
			theme := kind == "themes"
			label := kind + " path"
			if theme {
				label = "theme"
			}
			if !isGlob(p) {
				if ok := checkOne(&errs, &m.Warnings, root, realRoot, where, label, p, theme); ok && theme {
					themes = append(themes, p)
				}
				continue
			}
			matches, err := globWithin(root, p)
			if err != nil {
				errs = append(errs, Problem{Path: where, Msg: fmt.Sprintf("%s glob %q: %v", strings.TrimSuffix(label, " path"), p, err)})
				continue
			}
			if len(matches) == 0 {
				m.Warnings = append(m.Warnings, Problem{Path: where, Msg: strings.TrimSuffix(label, " path") + " glob " + strconv.Quote(p) + " matched no files"})
			}
			for _, match := range matches {
				if ok := checkOne(&errs, &m.Warnings, root, realRoot, where, label, match, theme); ok && theme {
					themes = append(themes, match)
				}
			}
		}
	}
	checked := map[string]bool{}
	for _, ev := range sortedKeys(m.Resources.Hooks) {
		for _, h := range m.Resources.Hooks[ev] {
			if f := h.ContextFile; f != "" && !checked[f] {
				checked[f] = true
				checkOne(&errs, &m.Warnings, root, realRoot, m.origins.of("contextFile", f), "contextFile path", f, false)
			}
		}
	}
	sort.Strings(themes)
	m.ThemeFiles = themes
	sortProblems(errs)
	return problems(errs)
}

// checkOne checks one concrete relative path and reports whether it exists
// and passed.
func checkOne(errs, warns *[]Problem, root, realRoot, where, label, p string, regular bool) bool {
	full := filepath.Join(root, filepath.FromSlash(p))
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			*warns = append(*warns, Problem{Path: where, Msg: label + " " + strconv.Quote(p) + " does not exist"})
		} else {
			*warns = append(*warns, Problem{Path: where, Msg: label + " " + strconv.Quote(p) + " cannot be read: " + unwrapPath(err).Error()})
		}
		return false
	}
	if !within(realRoot, real) {
		*errs = append(*errs, Problem{Path: where, Msg: label + " " + strconv.Quote(p) + " escapes the plugin root through a symlink"})
		return false
	}
	if regular {
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() {
			*errs = append(*errs, Problem{Path: where, Msg: label + " " + strconv.Quote(p) + " is not a regular file"})
			return false
		}
	}
	return true
}

// globWithin expands a per-segment glob one directory level at a time from
// root, which is never itself a pattern. Results are relative, slash
// separated and sorted.
func globWithin(root, pattern string) ([]string, error) {
	cur := []string{""}
	for _, seg := range strings.Split(pattern, "/") {
		var next []string
		for _, dir := range cur {
			if !isGlob(seg) {
				p := path.Join(dir, seg)
				if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err == nil {
					next = append(next, p)
				}
				continue
			}
			entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
			if err != nil {
				continue
			}
			for _, e := range entries {
				ok, err := path.Match(seg, e.Name())
				if err != nil {
					return nil, err
				}
				if ok {
					next = append(next, path.Join(dir, e.Name()))
				}
			}
			if len(next) > maxGlobMatches {
				return nil, errors.New("matches too many files")
			}
		}
		cur = next
	}
	sort.Strings(cur)
	return cur, nil
}

func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
}

// ThemeID is the id a theme file of a plugin is shown under:
// plugin:<plugin>:<file stem>.
func ThemeID(plugin, file string) string {
	base := path.Base(file)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	return "plugin:" + plugin + ":" + base
}
