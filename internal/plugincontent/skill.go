package plugincontent

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Skill is a playbook the model (run_skill, read_skill) or the user
// (/<slash name>) can invoke: a SKILL.md directory or a flat markdown file
// of a skills root, or an agent definition of an agents root.
type Skill struct {
	// Name is the bare identifier the model sees and run_skill takes.
	Name        string
	Description string
	// Subagent is set when the skill runs as an isolated child turn
	// (runAs: subagent, context: fork, any agent: value, every agent
	// definition); otherwise its body is inlined.
	Subagent bool
	// AllowedTools scopes a subagent run's tools (allowed-tools, else
	// tools); empty means every parent tool. Inline skills ignore it.
	AllowedTools []string
	// Model and Effort override the session's for a subagent run; Claude
	// model aliases (sonnet, opus, haiku, inherit) are cleared for agents.
	Model, Effort string
	// ReadOnly asks for a read-only tool set in a subagent run.
	ReadOnly bool
	// Manual (invocation: manual, every agent) keeps the skill out of the
	// model's index; it stays invocable.
	Manual bool
	// UserOnly (disable-model-invocation: true, Claude Code's key) hides
	// the skill from the model altogether: not in the index, not in
	// slash_command, not run or read by run_skill and read_skill. The user
	// still types it.
	UserOnly bool
	// Profiles and Requires are kept as declared (comma lists); see
	// Env.Ready for how Requires gates an invocation.
	Profiles, Requires []string
	Color              string
	// Body is the instructions, trimmed, with a directory skill's
	// references and scripts appended.
	Body string
	// Path is the SKILL.md or markdown file.
	Path   string
	Scope  Scope
	Plugin string
	// Agent marks an agent definition: its slash name is
	// <plugin>:agent:<name>.
	Agent bool
	// Dir is a SKILL.md skill's folder, whose other files (forms.md,
	// reference/*.md) read_skill reads on demand; "" for a flat skill.
	Dir string
	// Claude marks a skill or agent written in Claude Code's format (its
	// root's Root.Claude).
	Claude bool
}

// SlashName is what the user types after "/": "<plugin>:<name>" for a
// plugin skill, "<plugin>:agent:<name>" for a plugin agent,
// "agent:<name>" for the user's or project's agent, the bare name
// otherwise. An agent's slash name is also its name in the model's
// Agents index and what run_skill resolves exactly.
func (s Skill) SlashName() string {
	switch {
	case s.Plugin == "" && s.Agent:
		return "agent:" + s.Name
	case s.Plugin == "":
		return s.Name
	case s.Agent:
		return s.Plugin + ":agent:" + s.Name
	}
	return s.Plugin + ":" + s.Name
}

var skillName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`)

// ValidSkillName reports whether name can be a skill's bare name.
func ValidSkillName(name string) bool { return skillName.MatchString(name) }

// DefaultSkillDepth is how many directory levels of a skills root are
// searched (the root's own entries are level 1).
const DefaultSkillDepth = 3

// skillKeys are the front-matter keys that mark a flat markdown file of a
// .claude/skills root as a skill.
var skillKeys = []string{
	"name", "description", "runas", "context", "agent", "allowed-tools", "tools",
	"model", "effort", "read-only", "invocation", "profiles", "requires",
	"triggers", "negative-triggers", "auto-use", "needs-fresh-data", "cost", "color",
	"disable-model-invocation",
}

// skippedDirs are never searched for skills (compared case-insensitively);
// neither is any directory whose name starts with ".".
var skippedDirs = []string{"assets", "node_modules", "references", "scripts"}

// scriptExts are the script files listed in a directory skill's body.
var scriptExts = []string{"", ".sh", ".py", ".js", ".ts", ".rb", ".pl", ".php", ".ps1"}

// claudeTools maps Claude Code tool names (lower-cased) in an agent's
// tools list to the reference's names.
var claudeTools = map[string]string{
	"read": "read_file", "write": "write_file", "edit": "edit_file", "bash": "bash",
	"grep": "grep", "glob": "glob", "ls": "ls", "webfetch": "web_fetch", "websearch": "web_search",
}

// claudeModels are the Claude model aliases an agent's model is cleared
// of, so the session's model runs it.
var claudeModels = []string{"sonnet", "opus", "haiku", "inherit"}

// scanSkills discovers the skills of w's root: its entries one level at
// a time down to maxDepth, a <name>/SKILL.md directory being a skill and
// any other directory searched further, a <name>.md file being a flat
// skill. Below level 1 a skill without a description is ignored. Every
// file read (SKILL.md, a flat file, a reference) resolves inside the
// root's bound; a skill whose name is not valid is a warning.
func scanSkills(w *walker, maxDepth int) []Skill {
	r := w.root
	real, err := w.resolve(r.Path)
	if err != nil {
		return nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil
	}
	sc := skillScan{w: w, root: r, maxDepth: maxDepth, marker: needsMarker(r)}
	if !fi.IsDir() {
		if isMarkdown(r.Path) && fi.Mode().IsRegular() {
			sc.flat(r.Path, real, 1)
		}
		return sc.out
	}
	if w.enter(real) {
		sc.dir(r.Path, 1)
	}
	return sc.out
}

// needsMarker reports whether flat files of r must carry skill front
// matter: only in a user's or project's .claude/skills, where other
// markdown is common.
func needsMarker(r Root) bool {
	clean := filepath.Clean(r.Path)
	return r.Plugin == "" && filepath.Base(clean) == "skills" && filepath.Base(filepath.Dir(clean)) == ".claude"
}

type skillScan struct {
	w        *walker
	root     Root
	maxDepth int
	marker   bool
	out      []Skill
}

func (sc *skillScan) dir(dir string, level int) {
	for _, e := range sc.w.readDir(dir) {
		if e.info.IsDir() {
			if skipDir(e.name) {
				continue
			}
			md := filepath.Join(e.path, "SKILL.md")
			if _, err := os.Lstat(filepath.Join(e.real, "SKILL.md")); err == nil {
				real, err := sc.w.resolve(md)
				if err != nil {
					continue // outside the bound: warned
				}
				if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() {
					if !ValidSkillName(e.name) {
						sc.badName(md, e.name)
						continue
					}
					if sc.w.enter(e.real) {
						sc.read(md, real, e.name, level, true)
					}
					continue
				}
			}
			if level < sc.maxDepth && sc.w.enter(e.real) {
				sc.dir(e.path, level+1)
			}
			continue
		}
		if e.info.Mode().IsRegular() && isMarkdown(e.name) {
			sc.flat(e.path, e.real, level)
		}
	}
}

func skipDir(name string) bool {
	if strings.HasPrefix(name, ".") {
		return true
	}
	for _, s := range skippedDirs {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}

// badName says a skill file is not served for its name.
func (sc *skillScan) badName(path, name string) {
	sc.w.warn(path, fmt.Sprintf("skill file %s: %q is not a valid skill name (a letter or digit, then up to 63 letters, digits, \".\", \"_\" or \"-\"); not served", path, name))
}

// flat reads a flat skill file: path as spelled, real as resolved. A
// file with an invalid stem is a warning, except in a root where flat
// files need skill front matter and this one has none (it is not meant
// as a skill).
func (sc *skillScan) flat(path, real string, level int) {
	base := filepath.Base(path)
	stem := base[:len(base)-len(filepath.Ext(base))]
	if ValidSkillName(stem) {
		sc.read(path, real, stem, level, false)
		return
	}
	if sc.marker {
		text, err := readText(real)
		if err != nil || !hasAny(parseFrontMatter(text, sc.root.Claude).keys, skillKeys) {
			return
		}
	}
	sc.badName(path, stem)
}

func (sc *skillScan) read(path, real, dirName string, level int, isDir bool) {
	r := sc.root
	text, err := readText(real)
	if err != nil {
		sc.w.warn(path, "skill load: "+err.Error())
		return
	}
	p := parseFrontMatter(text, r.Claude)
	fm, body := p.fm, p.body
	if sc.marker && !isDir && !hasAny(p.keys, skillKeys) {
		return
	}
	s := Skill{
		Name:        dirName,
		Description: fm["description"],
		Model:       fm["model"],
		Effort:      fm["effort"],
		Color:       fm["color"],
		Body:        strings.TrimSpace(body),
		Path:        path,
		Scope:       r.Scope,
		Plugin:      r.Plugin,
		Claude:      r.Claude,
	}
	if isDir {
		s.Dir = filepath.Dir(path)
	}
	if n := fm["name"]; ValidSkillName(n) {
		s.Name = n
	}
	if level > 1 && s.Description == "" {
		return
	}
	s.Subagent = fm["runas"] == "subagent" || strings.EqualFold(fm["context"], "fork") || fm["agent"] != ""
	toolsKey := "allowed-tools"
	if !p.keys[toolsKey] && !p.unreadable[toolsKey] {
		toolsKey = "tools"
	}
	s.AllowedTools = splitList(fm[toolsKey])
	s.ReadOnly = truthy(fm["read-only"])
	if p.unreadable[toolsKey] || p.unreadable["read-only"] {
		// An allow-list (or read-only flag) that could not be read as
		// written narrows the subagent to read-only tools (of what the
		// list names, if anything), rather than leaving it every tool.
		s.ReadOnly = true
	}
	s.Manual = strings.EqualFold(fm["invocation"], "manual")
	s.UserOnly = truthy(fm["disable-model-invocation"])
	s.Profiles = splitList(fm["profiles"])
	s.Requires = splitList(fm["requires"])
	if r.Claude {
		// A Claude-format skill names Claude Code's tools.
		s.AllowedTools = mapClaudeTools(s.AllowedTools)
	}
	if r.Kind == KindAgents {
		s.Agent, s.Subagent, s.Manual = true, true, true
		s.AllowedTools = mapClaudeTools(s.AllowedTools)
		for _, m := range claudeModels {
			if strings.EqualFold(s.Model, m) {
				s.Model = ""
			}
		}
	}
	if r.Claude {
		// Claude Code's placeholders of a skill or agent body.
		if s.Dir != "" {
			s.Body = expandVar(s.Body, "CLAUDE_SKILL_DIR", s.Dir)
		}
		if r.Plugin != "" && r.Bound != "" {
			s.Body = expandVar(s.Body, "CLAUDE_PLUGIN_ROOT", r.Bound)
		}
	}
	if isDir {
		s.Body += sc.w.dirExtras(filepath.Dir(path))
	}
	if s.Description == "" {
		sc.w.warn(path, "warning: skill \""+s.Name+"\" at "+path+" has no description: — it will load but won't appear in the skills index")
	}
	sc.out = append(sc.out, s)
}

func hasAny(keys map[string]bool, want []string) bool {
	for _, k := range want {
		if keys[k] {
			return true
		}
	}
	return false
}

// splitList reads a comma list, optionally in [ ] (an unclosed "[" of a
// list cut short too), items trimmed of spaces and quotes.
func splitList(s string) []string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") && (strings.HasSuffix(s, "]") || !strings.Contains(s, "]")) {
		s = strings.TrimSuffix(s[1:], "]")
	}
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.Trim(strings.TrimSpace(it), `"'`+"`"); it != "" {
			out = append(out, strings.TrimSpace(it))
		}
	}
	return out
}

func truthy(s string) bool {
	switch strings.ToLower(s) {
	case "true", "yes", "1", "on":
		return true
	}
	return false
}

func mapClaudeTools(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range in {
		if m, ok := claudeTools[strings.ToLower(t)]; ok {
			t = m
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// dirExtras is what a directory skill's body gains: each references/*.md
// (sorted) as a "Reference" section and a "Scripts" section listing the
// absolute paths of its scripts/. A reference or script that leads
// outside the bound is a warning and left out.
func (w *walker) dirExtras(dir string) string {
	var b strings.Builder
	for _, e := range w.readDir(filepath.Join(dir, "references")) {
		if !e.info.Mode().IsRegular() || !isMarkdown(e.name) {
			continue
		}
		text, err := readText(e.real)
		if err != nil {
			continue
		}
		b.WriteString("\n\n## Reference: " + strings.TrimSuffix(e.name, filepath.Ext(e.name)) + "\n\n" + strings.TrimSpace(text))
	}
	var scripts []string
	for _, e := range w.readDir(filepath.Join(dir, "scripts")) {
		if !e.info.Mode().IsRegular() || strings.HasPrefix(e.name, ".") {
			continue
		}
		ext := strings.ToLower(filepath.Ext(e.name))
		for _, x := range scriptExts {
			if ext == x {
				scripts = append(scripts, e.path)
				break
			}
		}
	}
	if len(scripts) > 0 {
		sort.Strings(scripts)
		b.WriteString("\n\n## Scripts\n\nThis skill ships the scripts below. Run them by their absolute path when the instructions call for them instead of rewriting what they do:\n")
		for _, p := range scripts {
			b.WriteString("\n- `" + p + "`")
		}
	}
	return b.String()
}
