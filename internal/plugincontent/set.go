package plugincontent

import (
	"path/filepath"
	"sort"
	"strings"

	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// Options tune Load.
type Options struct {
	// SkillDepth is how many directory levels of a skills or agents root
	// are searched: 1..5, 0 meaning DefaultSkillDepth (3).
	SkillDepth int
	// MaxWalkEntries bounds the directory entries one root's walk
	// examines, 0 meaning DefaultMaxWalkEntries.
	MaxWalkEntries int
}

func (o Options) maxWalkEntries() int {
	if o.MaxWalkEntries > 0 {
		return o.MaxWalkEntries
	}
	return DefaultMaxWalkEntries
}

// Set is the loaded markdown contributions of a runtime: commands (with
// prompts), skills and agents. It is immutable and safe for concurrent
// use; the slices its methods return are fresh, but their elements share
// backing arrays (AllowedTools, Profiles, Requires), which callers must
// not modify.
type Set struct {
	commands []Command // every command, hidden aliases too, by Name
	skills   []Skill   // every skill and agent, in root priority order
}

// Load reads every root. The order of roots matters within each kind:
// commands and prompts roots go lowest priority first (a later user or
// project root wins a name), skills and agents roots highest priority
// first (the first root wins a bare name). Roots builds a list in that
// order. A missing or unreadable root is skipped silently, a file that
// cannot be read is a Warning, and a root listed twice (same kind, path
// and plugin) is read once. Relative paths are made absolute. Every
// folder and file of a root resolves inside its Bound (internal/fsbound);
// one that leads outside through a symlink is a Warning naming it and is
// neither read nor entered.
func Load(roots []Root, opts Options) (*Set, []Warning) {
	depth := opts.SkillDepth
	if depth <= 0 {
		depth = DefaultSkillDepth
	}
	depth = min(depth, 5)
	roots = append([]Root(nil), roots...)
	for i := range roots {
		if abs, err := filepath.Abs(roots[i].Path); err == nil {
			roots[i].Path = abs
		}
	}
	roots = dedupe(roots)
	var cmdRoots []Root
	var warns []Warning
	set := &Set{}
	bounds := map[string]*fsbound.Root{}
	for _, r := range roots {
		switch r.Kind {
		case KindCommands, KindPrompts:
			cmdRoots = append(cmdRoots, r)
		case KindSkills, KindAgents:
			if w := newWalker(r, bounds, opts.maxWalkEntries(), &warns); w != nil {
				set.skills = append(set.skills, scanSkills(w, depth)...)
			}
		default:
			warns = append(warns, Warning{Path: r.Path, Plugin: r.Plugin, Msg: "unknown root kind \"" + string(r.Kind) + "\""})
		}
	}
	cmds, cw := loadCommands(cmdRoots, opts)
	set.commands = cmds
	return set, append(warns, cw...)
}

// Commands returns the visible commands (hidden short aliases left out),
// sorted by Name: what completion, help, rx/actions and the slash_command
// tool list.
func (s *Set) Commands() []Command {
	var out []Command
	for _, c := range s.commands {
		if !c.Hidden {
			out = append(out, c)
		}
	}
	return out
}

// LookupCommand finds the command typed as name (a leading "/" is
// ignored), hidden aliases included.
func (s *Set) LookupCommand(name string) (Command, bool) {
	name = strings.TrimPrefix(name, "/")
	i := sort.Search(len(s.commands), func(i int) bool { return s.commands[i].Name >= name })
	if i < len(s.commands) && s.commands[i].Name == name {
		return s.commands[i], true
	}
	return Command{}, false
}

// Skills returns what the model sees: one skill per bare name, the first
// root in priority order winning (project before plugins, plugins in
// installed-name order), sorted by name. Agents are included (run_skill
// takes their bare names); SkillIndex leaves out the manual ones.
func (s *Set) Skills() []Skill {
	return firstBy(s.skills, func(sk Skill) string { return sk.Name })
}

// Agents returns every agent, one per full name (SlashName), sorted by
// it: what the model's Agents index lists.
func (s *Set) Agents() []Skill {
	var agents []Skill
	for _, sk := range s.skills {
		if sk.Agent {
			agents = append(agents, sk)
		}
	}
	return firstBy(agents, Skill.SlashName)
}

// SlashSkills returns what the user sees: one skill per slash name
// (so alpha:plan and beta:plan both), sorted by slash name.
func (s *Set) SlashSkills() []Skill {
	return firstBy(s.skills, Skill.SlashName)
}

func firstBy(all []Skill, key func(Skill) string) []Skill {
	seen := map[string]bool{}
	var out []Skill
	for _, sk := range all {
		if k := key(sk); !seen[k] {
			seen[k] = true
			out = append(out, sk)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// lookupSkill is run_skill's lookup: the model-visible skill with this
// bare name.
func (s *Set) lookupSkill(name string) (Skill, bool) {
	for _, sk := range s.skills {
		if sk.Name == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// ResolveSlashSkill finds the skill typed as name (a leading "/" is
// ignored): an exact slash name first; else a valid bare name resolves to
// the first skill carrying it, unless that is a plugin's and more than one
// plugin has a skill of that name (then only the qualified names work).
// A user's or project's skill keeps its short name whatever plugins add.
func (s *Set) ResolveSlashSkill(name string) (Skill, bool) {
	name = strings.TrimPrefix(name, "/")
	for _, sk := range s.skills {
		if sk.SlashName() == name {
			return sk, true
		}
	}
	if strings.Contains(name, ":") || !ValidSkillName(name) {
		return Skill{}, false
	}
	winner, ok := s.lookupSkill(name)
	if !ok || winner.Plugin == "" {
		return winner, ok
	}
	plugins := map[string]bool{}
	for _, sk := range s.skills {
		if sk.Name == name && sk.Plugin != "" {
			plugins[sk.Plugin] = true
		}
	}
	if len(plugins) > 1 {
		return Skill{}, false
	}
	return winner, true
}
