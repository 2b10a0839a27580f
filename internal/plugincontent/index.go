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

	agentsHeading = "# Agents — subagents you can delegate to"
	agentsPolicy  = "Each line below names an agent: a subagent with its own instructions and tools. " +
		"When a task matches an agent's description, delegate it with " +
		"`run_skill({ name: \"<agent-name>\", arguments: \"<task>\" })`, passing the full name exactly as shown. " +
		"The agent runs in isolation and sees only `arguments`, so describe the concrete task there; only its final answer comes back."
)

// SkillIndex is the block to append once to the system prompt: a heading,
// the policy paragraph and a fenced list of every skill of Skills() that
// is neither invocation: manual nor an agent, one line each; then, when
// there are agents, the Agents block: its heading, policy and a fenced
// list of every agent by its full name (SlashName), so the model can
// tell two plugins' code-reviewer apart. A disable-model-invocation
// skill or agent is never listed. It is "" when nothing is listed. The
// skills block depends only on bare names and descriptions, so it is
// byte-identical whichever plugin contributes a skill.
func (s *Set) SkillIndex() string {
	var lines []string
	for _, sk := range s.Skills() {
		if !sk.Manual && !sk.UserOnly && !sk.Agent {
			lines = append(lines, indexLine(sk))
		}
	}
	var agents []string
	for _, sk := range s.Agents() {
		if !sk.UserOnly {
			agents = append(agents, indexLine(Skill{Name: sk.SlashName(), Description: sk.Description}))
		}
	}
	var blocks []string
	if len(lines) > 0 {
		blocks = append(blocks, indexHeading+"\n\n"+indexPolicy+"\n\n```\n"+clipIndex(lines)+"\n```")
	}
	if len(agents) > 0 {
		blocks = append(blocks, agentsHeading+"\n\n"+agentsPolicy+"\n\n```\n"+clipIndex(agents)+"\n```")
	}
	return strings.Join(blocks, "\n\n")
}

// clipIndex joins an index's lines, clipped to IndexMaxRunes.
func clipIndex(lines []string) string {
	body := strings.Join(lines, "\n")
	if n := utf8.RuneCountInString(body); n > IndexMaxRunes {
		body = string([]rune(body)[:IndexMaxRunes]) + "\n… (truncated " + strconv.Itoa(n-IndexMaxRunes) + " chars)"
	}
	return body
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
