package plugincontent

import (
	"os"
	"path/filepath"
)

// Kind is what a root directory contributes.
type Kind string

// The root kinds. Prompts are served exactly like commands.
const (
	KindCommands Kind = "commands"
	KindPrompts  Kind = "prompts"
	KindSkills   Kind = "skills"
	KindAgents   Kind = "agents"
)

// Scope says where a root comes from; a skill's scope is shown in its
// rendered header.
type Scope string

// The scopes, as the reference names them.
const (
	// ScopeProject is a directory of the workspace.
	ScopeProject Scope = "project"
	// ScopeCustom is a plugin's root.
	ScopeCustom Scope = "custom"
	// ScopeGlobal is a directory of the user's home or Reasonix home.
	ScopeGlobal Scope = "global"
)

// Root is one directory (or single markdown file) to load.
type Root struct {
	// Path is absolute.
	Path string
	// Plugin is the installed name of the owning plugin, "" for the
	// user's and the project's own directories.
	Plugin string
	Kind   Kind
	Scope  Scope
}

// Warning is something wrong with one file or root that did not stop the
// rest from loading.
type Warning struct {
	// Path is the file or root concerned, "" when none.
	Path string
	// Plugin is the owning plugin's installed name, "" when none.
	Plugin string
	Msg    string
}

func (w Warning) String() string {
	if w.Plugin != "" {
		return w.Plugin + ": " + w.Msg
	}
	return w.Msg
}

// dedupe drops a root that repeats an earlier one of the same kind, path
// and plugin (the reference drops such duplicates).
func dedupe(roots []Root) []Root {
	type key struct {
		kind         Kind
		path, plugin string
	}
	seen := map[key]bool{}
	var out []Root
	for _, r := range roots {
		k := key{r.Kind, filepath.Clean(r.Path), r.Plugin}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// entry is one directory entry with symlinks followed.
type entry struct {
	name, path string
	info       os.FileInfo
}

// readDir lists dir sorted by name, following symlinks; broken links and
// entries that cannot be stat'ed are skipped, as the reference does.
func readDir(dir string) []entry {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []entry
	for _, de := range des {
		p := filepath.Join(dir, de.Name())
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		out = append(out, entry{de.Name(), p, fi})
	}
	return out
}

// visited tracks directories by resolved path so symlink cycles end.
type visited map[string]bool

// enter reports whether dir is new, marking it seen.
func (v visited) enter(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	if v[real] {
		return false
	}
	v[real] = true
	return true
}
