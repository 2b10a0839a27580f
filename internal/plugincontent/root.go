package plugincontent

import "path/filepath"

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
	// Bound is the directory every file of the root must resolve
	// inside, symlinks followed (internal/fsbound), the root itself
	// included: Roots sets the workspace for its convention folders, the
	// user's home for the home's (and for a Reasonix home inside it), the
	// plugin root for a plugin's. "" bounds the root by itself (a file
	// root by its folder).
	Bound string
	// Claude marks a root written in Claude Code's format: a Claude
	// Code package's (.claude-plugin) and the user's and project's
	// .claude folders. Its parts follow Claude Code's contract where it
	// differs from Reasonix's (lenient front matter, command arguments
	// and expansions); every other root keeps Reasonix's.
	Claude bool
	// boundName is how warnings name Bound ("the workspace", …); "" names
	// it by its path.
	boundName string
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
