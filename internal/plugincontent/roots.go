package plugincontent

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// Package is an installed package (manifest.Package): Name is the
// installed name, Root the installed root.
type Package = manifest.Package

// Places are the user's and the workspace's own directories whose
// commands and skills are served beside the plugins'.
type Places struct {
	// Workspace is the project root; "" for none.
	Workspace string
	// Folders are the workspace's other roots (a multi-root workspace),
	// in the editor's order; each is a project root after Workspace.
	Folders []string
	// UserHome is the user's home directory (~). Its convention
	// directories are read when it is set; leave it "" to isolate a
	// session from them (tests, an RX_BRIDGE_HOME sandbox).
	UserHome string
	// ReasonixHome is the configured Reasonix home (reasonix_home); its
	// commands and skills directories are read when it is set.
	ReasonixHome string
}

// The convention directory names, in the reference's order.
var (
	conventionCmdDirs   = []string{".claude", ".agent", ".agents", ".reasonix"}
	conventionSkillDirs = []string{".reasonix", ".agents", ".agent", ".claude"}
)

// Roots lists every root to Load, in the order Load expects:
//
// commands and prompts, lowest priority first: each package's prompts
// then commands roots (packages in installed-name order), then the home's
// ~/.claude/commands, ~/.agent/commands, ~/.agents/commands,
// ~/.reasonix/commands, then <ReasonixHome>/commands, then the
// workspace's .claude/commands, .agent/commands, .agents/commands,
// .reasonix/commands (so a project command wins its name);
//
// skills and agents, highest priority first: the workspace's
// .reasonix/skills, .agents/skills, .agent/skills, .claude/skills, then
// the workspace's .claude/agents and the home's ~/.claude/agents (Claude
// Code's project and user agents, which win over a plugin's), then
// each package's skills then agents roots, then <ReasonixHome>/skills,
// then ~/.reasonix/skills, ~/.agents/skills, ~/.agent/skills,
// ~/.claude/skills.
//
// In a multi-root workspace (Folders) every folder is a project root:
// its commands come before the primary workspace's (the last folder
// first), its skills and agents after the primary's (in the folders'
// order), so of two project commands or skills of one name the primary
// folder's wins, then the earlier folder's.
//
// A package's declared paths may be globs; they are expanded here. A
// Claude Code package also gets its conventional commands/ and
// .claude/commands/ (when they hold a command), agents/ (when it holds a
// flat agent file) and, when it declares no skills, skills/ and
// .claude/skills/ (when they hold a <dir>/SKILL.md), as Reasonix adopts
// them. An adopted directory that leaves the plugin root through a
// symlink is a warning and skipped.
func Roots(pkgs []Package, places Places) ([]Root, []Warning) {
	pkgs = slices.Clone(pkgs)
	sort.SliceStable(pkgs, func(i, j int) bool { return pkgs[i].Name < pkgs[j].Name })
	var warns []Warning
	contents := make([]map[Kind][]string, len(pkgs))
	for i, p := range pkgs {
		contents[i] = packagePaths(p, &warns)
	}
	var roots []Root
	bound, boundName := "", ""
	add := func(kind Kind, scope Scope, plugin string, paths ...string) {
		for _, p := range paths {
			roots = append(roots, Root{Path: p, Plugin: plugin, Kind: kind, Scope: scope, Bound: bound, boundName: boundName})
		}
	}
	in := func(dir, name string) { bound, boundName = dir, name }
	inHome := func() { in(places.UserHome, "the user's home") }
	inReasonix := func() {
		// A Reasonix home inside the user's home is bounded by the home
		// (dotfile repos link its folders elsewhere in it); one outside
		// by itself.
		if places.UserHome != "" && fsbound.Within(filepath.Clean(places.UserHome), filepath.Clean(places.ReasonixHome)) {
			inHome()
			return
		}
		in(places.ReasonixHome, "the Reasonix home")
	}
	inWorkspace := func() { in(places.Workspace, "the workspace") }
	under := func(base string, dirs []string, leaf string) []string {
		if base == "" {
			return nil
		}
		var out []string
		for _, d := range dirs {
			out = append(out, filepath.Join(base, d, leaf))
		}
		return out
	}
	for i, p := range pkgs {
		in(p.Root, "the plugin root")
		add(KindPrompts, ScopeCustom, p.Name, contents[i][KindPrompts]...)
		add(KindCommands, ScopeCustom, p.Name, contents[i][KindCommands]...)
	}
	inHome()
	add(KindCommands, ScopeGlobal, "", under(places.UserHome, conventionCmdDirs, "commands")...)
	inReasonix()
	add(KindCommands, ScopeGlobal, "", under(places.ReasonixHome, []string{"."}, "commands")...)
	for _, f := range slices.Backward(places.Folders) {
		in(f, "the workspace folder "+f)
		add(KindCommands, ScopeProject, "", under(f, conventionCmdDirs, "commands")...)
	}
	inWorkspace()
	add(KindCommands, ScopeProject, "", under(places.Workspace, conventionCmdDirs, "commands")...)

	add(KindSkills, ScopeProject, "", under(places.Workspace, conventionSkillDirs, "skills")...)
	for _, f := range places.Folders {
		in(f, "the workspace folder "+f)
		add(KindSkills, ScopeProject, "", under(f, conventionSkillDirs, "skills")...)
	}
	inWorkspace()
	add(KindAgents, ScopeProject, "", under(places.Workspace, []string{".claude"}, "agents")...)
	for _, f := range places.Folders {
		in(f, "the workspace folder "+f)
		add(KindAgents, ScopeProject, "", under(f, []string{".claude"}, "agents")...)
	}
	inHome()
	add(KindAgents, ScopeGlobal, "", under(places.UserHome, []string{".claude"}, "agents")...)
	for i, p := range pkgs {
		in(p.Root, "the plugin root")
		add(KindSkills, ScopeCustom, p.Name, contents[i][KindSkills]...)
		add(KindAgents, ScopeCustom, p.Name, contents[i][KindAgents]...)
	}
	inReasonix()
	add(KindSkills, ScopeGlobal, "", under(places.ReasonixHome, []string{"."}, "skills")...)
	inHome()
	add(KindSkills, ScopeGlobal, "", under(places.UserHome, conventionSkillDirs, "skills")...)
	claude := map[string]bool{}
	for _, p := range pkgs {
		claude[p.Name] = p.Manifest != nil && p.Manifest.Kind == manifest.KindClaude
	}
	for i, r := range roots {
		if r.Plugin != "" {
			roots[i].Claude = claude[r.Plugin]
		} else {
			roots[i].Claude = filepath.Base(filepath.Dir(r.Path)) == ".claude"
		}
	}
	return dedupe(roots), warns
}

// packagePaths are a package's absolute root paths by kind, globs
// expanded and sorted, Claude convention directories adopted.
func packagePaths(p Package, warns *[]Warning) map[Kind][]string {
	res := p.Manifest.Resources
	declared := map[Kind][]string{
		KindCommands: res.Commands, KindPrompts: res.Prompts,
		KindSkills: res.Skills, KindAgents: res.Agents,
	}
	out := map[Kind][]string{}
	for kind, paths := range declared {
		var rels []string
		for _, rel := range paths {
			rels = append(rels, expand(p.Root, rel)...)
		}
		if p.Manifest.Kind == manifest.KindClaude {
			rels = append(rels, adopt(p, kind, rels, len(paths) > 0, warns)...)
		}
		sort.Strings(rels)
		for _, rel := range slices.Compact(rels) {
			out[kind] = append(out[kind], filepath.Join(p.Root, filepath.FromSlash(rel)))
		}
	}
	return out
}

// expand returns the paths a declared (possibly glob) path names.
func expand(dir, rel string) []string {
	if !strings.ContainsAny(rel, "*?[") {
		return []string{rel}
	}
	m, err := fs.Glob(os.DirFS(dir), rel)
	if err != nil {
		return nil
	}
	return m
}

// adopt returns the conventional directories of a Claude Code package
// that Reasonix serves for kind without the manifest naming them.
func adopt(p Package, kind Kind, have []string, declared bool, warns *[]Warning) []string {
	bounds := map[string]*fsbound.Root{}
	walkerOf := func(dir string) *walker {
		var scratch []Warning // Load says what is wrong with the root it adopts
		return newWalker(Root{Path: dir, Kind: kind, Plugin: p.Name, Bound: p.Root, boundName: "the plugin root"}, bounds, DefaultMaxWalkEntries, &scratch)
	}
	var candidates []string
	var holds func(*walker) bool
	switch kind {
	case KindCommands:
		candidates = []string{"commands", ".claude/commands"}
		holds = func(w *walker) bool { return len(walkCommands(w)) > 0 }
	case KindAgents:
		candidates = []string{"agents"}
		holds = func(w *walker) bool {
			for _, e := range w.readDir(w.root.Path) {
				if e.info.Mode().IsRegular() && isMarkdown(e.name) && ValidSkillName(strings.TrimSuffix(e.name, filepath.Ext(e.name))) {
					return true
				}
			}
			return false
		}
	case KindSkills:
		if declared {
			return nil
		}
		candidates = []string{"skills", ".claude/skills"}
		holds = func(w *walker) bool {
			for _, e := range w.readDir(w.root.Path) {
				if fi, err := os.Stat(filepath.Join(e.real, "SKILL.md")); e.info.IsDir() && err == nil && fi.Mode().IsRegular() {
					return true
				}
			}
			return false
		}
	default:
		return nil
	}
	b, err := fsbound.New(p.Root, "the plugin root")
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range candidates {
		if slices.Contains(have, c) {
			continue
		}
		dir := filepath.Join(p.Root, filepath.FromSlash(c))
		if _, err := os.Lstat(dir); err != nil {
			continue
		}
		if _, err := b.Resolve(dir); err != nil {
			if errors.Is(err, fsbound.ErrOutside) {
				*warns = append(*warns, Warning{Path: dir, Plugin: p.Name, Msg: path.Clean(c) + " escapes the plugin root through a symlink; not served"})
			}
			continue
		}
		if w := walkerOf(dir); w != nil && holds(w) {
			out = append(out, c)
		}
	}
	return out
}
