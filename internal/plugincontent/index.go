package plugincontent

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// The skills index block of the system prompt.
const (
	indexHeading = "# Skills — playbooks you can invoke"
	indexPolicy  = "Each line below names a skill: a playbook of instructions for a kind of task. " +
		"When a task matches a skill's description, call `run_skill({ name: \"<skill-name>\", arguments: \"<task>\" })` " +
		"with the bare name shown, before doing the work yourself, and follow what it returns. " +
		"Skills tagged `[🧬 subagent]` run as an isolated subagent that sees only `arguments`, " +
		"so describe the concrete task there; only its final answer comes back."
	subagentTag = " [🧬 subagent]"
	// indexLineWidth is the runes an index line's name, tag and
	// description share.
	indexLineWidth = 130
	// IndexMaxRunes caps the index lines (the heading and policy are
	// not counted).
	IndexMaxRunes      = 4000
	missingDescription = `(no description — frontmatter is missing a "description:" line; tell the user to add one)`
)

// SkillIndex is the block to append once to the system prompt: a heading,
// the policy paragraph and a fenced list of every skill of Skills() that
// is not invocation: manual, one line each. It is "" when no skill is
// listed; a disable-model-invocation skill is never listed. Its text depends only on bare names and descriptions, so it is
// byte-identical whichever plugin contributes a skill.
func (s *Set) SkillIndex() string {
	var lines []string
	for _, sk := range s.Skills() {
		if !sk.Manual && !sk.UserOnly {
			lines = append(lines, indexLine(sk))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	body := strings.Join(lines, "\n")
	if n := utf8.RuneCountInString(body); n > IndexMaxRunes {
		body = string([]rune(body)[:IndexMaxRunes]) + "\n… (truncated " + strconv.Itoa(n-IndexMaxRunes) + " chars)"
	}
	return indexHeading + "\n\n" + indexPolicy + "\n\n```\n" + body + "\n```"
}

// indexLine is "- <name>[ [🧬 subagent]] — <description>", the
// description on one line and clipped, by whole grapheme clusters, to what
// the name and tag leave of indexLineWidth runes.
func indexLine(sk Skill) string {
	tag := ""
	if sk.Subagent {
		tag = subagentTag
	}
	desc := strings.ReplaceAll(sk.Description, "\n", " ")
	if desc == "" {
		desc = missingDescription
	}
	budget := indexLineWidth - utf8.RuneCountInString(sk.Name) - utf8.RuneCountInString(tag)
	return "- " + sk.Name + tag + " — " + clipGraphemes(desc, budget)
}

// clipGraphemes shortens s to at most max runes ending in "…", never
// splitting a grapheme cluster (an emoji sequence, a letter with its
// combining marks).
func clipGraphemes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	var b strings.Builder
	used, state := 0, -1
	for rest := s; rest != ""; {
		var cluster string
		cluster, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
		n := utf8.RuneCountInString(cluster)
		if used+n > max-1 {
			break
		}
		b.WriteString(cluster)
		used += n
	}
	return b.String() + "…"
}
