package plugincontent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/fsbound"
)

// Tool is one tool offered to the model. The agent wraps it in its own
// tool interface: Schema is what the model sees, ReadOnly whether it
// never changes anything, Call runs one call (an error is the call's
// failure, shown to the model).
type Tool struct {
	Schema   extproto.ProviderToolSchema
	ReadOnly bool
	Call     func(ctx context.Context, args json.RawMessage) (string, error)
}

// The tool names.
const (
	ToolSlashCommand = "slash_command"
	ToolRunSkill     = "run_skill"
	ToolReadSkill    = "read_skill"
)

// Tools returns slash_command, run_skill and read_skill, in that order,
// bound to env. run_skill and read_skill see the bare names of Skills();
// slash_command sees the visible slash skills and commands.
func (s *Set) Tools(env Env) []Tool {
	return []Tool{s.slashTool(env), s.runSkillTool(env), s.readSkillTool(env)}
}

// slashEntry is one entry of the slash_command tool.
type slashEntry struct {
	name, hint, desc string
	cmd              *Command
	skill            *Skill
}

// slashEntries are every visible slash skill, then every visible command,
// but none the model may not invoke (disable-model-invocation); a command
// replaces a skill of the same name in place.
func (s *Set) slashEntries() []slashEntry {
	var out []slashEntry
	at := map[string]int{}
	put := func(e slashEntry) {
		if i, ok := at[e.name]; ok {
			out[i] = e
			return
		}
		at[e.name] = len(out)
		out = append(out, e)
	}
	for _, sk := range s.SlashSkills() {
		if sk.UserOnly {
			continue
		}
		put(slashEntry{name: sk.SlashName(), desc: sk.Description, skill: &sk})
	}
	for _, c := range s.Commands() {
		if c.UserOnly {
			if i, ok := at[c.Name]; ok {
				out[i] = slashEntry{} // the command owns the name; the model gets neither
			}
			continue
		}
		put(slashEntry{name: c.Name, hint: c.ArgHint, desc: c.Description, cmd: &c})
	}
	return slices.DeleteFunc(out, func(e slashEntry) bool { return e.name == "" })
}

const slashToolIntro = "Expand one of this project's slash commands (custom commands and skills) and return its prompt text, " +
	"which you then follow as instructions. Pass the command name (with or without the leading slash) and its arguments " +
	"as the user would type them; pass no command, or \"list\", to list them. "

var slashSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"command":{"type":"string","description":"Command name, with or without the leading slash; empty or \"list\" lists the commands."},` +
	`"arguments":{"type":"string","description":"Arguments, space-separated, as typed after the command."}},` +
	`"additionalProperties":false}`)

func (s *Set) slashTool(env Env) Tool {
	entries := s.slashEntries()
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.name
	}
	desc := slashToolIntro + "No slash commands are configured in this project."
	if len(names) > 0 {
		desc = slashToolIntro + "Available: " + strings.Join(names, ", ") + "."
	}
	call := func(_ context.Context, raw json.RawMessage) (string, error) {
		var a struct {
			Command   string `json:"command"`
			Arguments string `json:"arguments"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return "", fmt.Errorf("invalid args: %w", err)
		}
		name := strings.TrimPrefix(strings.TrimSpace(a.Command), "/")
		if name == "" || name == "list" {
			if len(entries) == 0 {
				return "No slash commands are configured in this project.", nil
			}
			var b strings.Builder
			b.WriteString("Available slash commands:")
			for _, e := range entries {
				b.WriteString("\n- /" + e.name)
				if e.hint != "" {
					b.WriteString(" " + e.hint)
				}
				if e.desc != "" {
					b.WriteString(" — " + e.desc)
				}
			}
			return b.String(), nil
		}
		for _, e := range entries {
			if e.name != name {
				continue
			}
			args := strings.Fields(a.Arguments)
			var text string
			if e.cmd != nil {
				text = e.cmd.Expand(a.Arguments, env)
			} else {
				if err := env.check(ToolSlashCommand, *e.skill); err != nil {
					return "", err
				}
				body, _ := env.prepare(*e.skill)
				text = renderSkill(*e.skill, body, strings.Join(args, " "))
			}
			return "Expanded /" + name + " — follow these instructions now:\n\n" + text, nil
		}
		return "", fmt.Errorf("no slash command %q; available: %s", name, strings.Join(names, ", "))
	}
	return Tool{
		Schema:   extproto.ProviderToolSchema{Name: ToolSlashCommand, Description: desc, Parameters: slashSchema},
		ReadOnly: true,
		Call:     call,
	}
}

var runSkillSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The skill's bare name, as listed in the Skills index, or the agent's full name, as listed in the Agents index."},` +
	`"arguments":{"type":"string","description":"The task. Required for a [🧬 subagent] skill or an agent: it is all the subagent sees."},` +
	`"continue_from":{"type":"string","description":"Continue an earlier run of the same subagent skill (its run id) instead of starting fresh."}},` +
	`"required":["name"],"additionalProperties":false}`)

var readSkillSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"The skill's bare name, as listed in the Skills index."},` +
	`"arguments":{"type":"string","description":"The task the instructions are for, if any."},` +
	`"file":{"type":"string","description":"A file of the skill's folder to read instead of its instructions, relative to the folder (forms.md, reference/api.md), as the instructions name it."}},` +
	`"required":["name"],"additionalProperties":false}`)

func (s *Set) runSkillTool(env Env) Tool {
	call := func(ctx context.Context, raw json.RawMessage) (string, error) {
		var a struct {
			Name         string `json:"name"`
			Arguments    string `json:"arguments"`
			ContinueFrom string `json:"continue_from"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return "", fmt.Errorf("invalid args: %w", err)
		}
		sk, err := s.skillArg(ToolRunSkill, a.Name)
		if err != nil {
			return "", err
		}
		if err := env.check(ToolRunSkill, sk); err != nil {
			return "", err
		}
		args := strings.TrimSpace(a.Arguments)
		if !sk.Subagent {
			if a.ContinueFrom != "" {
				return "", errors.New("run_skill: subagent continuation is only valid for runAs=subagent skills")
			}
			body, _ := env.prepare(sk)
			return pinned(sk.Name, renderSkill(sk, body, args)), nil
		}
		if env.Runner == nil {
			return "", fmt.Errorf("run_skill: skill %q is runAs=subagent but no subagent runner is configured in this session", sk.Name)
		}
		if args == "" {
			return "", fmt.Errorf("run_skill: skill %q is a subagent and requires 'arguments' — the subagent has no other context, so describe the concrete task", sk.Name)
		}
		return env.Runner.RunSubagent(ctx, env.subagentRequest(sk, args, a.ContinueFrom))
	}
	return Tool{
		Schema: extproto.ProviderToolSchema{Name: ToolRunSkill, Parameters: runSkillSchema,
			Description: "Run a skill from the Skills index by its bare name, or an agent from the Agents index by its full name. " +
				"An inline skill returns its instructions, which you then follow; " +
				"a [🧬 subagent] skill or an agent runs as an isolated subagent on `arguments` and returns its answer."},
		Call: call,
	}
}

func (s *Set) readSkillTool(env Env) Tool {
	call := func(_ context.Context, raw json.RawMessage) (string, error) {
		var a struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
			File      string `json:"file"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return "", fmt.Errorf("invalid args: %w", err)
		}
		sk, err := s.skillArg(ToolReadSkill, a.Name)
		if err != nil {
			return "", err
		}
		if a.File != "" {
			return readSkillFile(sk, a.File)
		}
		if sk.Subagent {
			return "", fmt.Errorf("read_skill: skill %q is a subagent and must be executed, not read — use run_skill (or the dedicated %s tool)", sk.Name, sk.Name)
		}
		if err := env.check(ToolReadSkill, sk); err != nil {
			return "", err
		}
		body, _ := env.prepare(sk)
		return pinned(sk.Name, renderSkill(sk, body, strings.TrimSpace(a.Arguments))), nil
	}
	return Tool{
		Schema: extproto.ProviderToolSchema{Name: ToolReadSkill, Parameters: readSkillSchema,
			Description: "Read an inline skill's instructions by its bare name without running anything, or, with `file`, one of the files " +
				"in the skill's folder that its instructions point to. Subagent skills' instructions cannot be read; run them with run_skill."},
		ReadOnly: true,
		Call:     call,
	}
}

// MaxSkillFileBytes bounds what read_skill returns of one file of a
// skill's folder; the rest is cut with a note.
const MaxSkillFileBytes = 256 << 10

// readSkillFile is read_skill's file mode: the file rel of sk's folder,
// which it must resolve inside (symlinks followed; "..", an absolute path
// elsewhere or a link out are refused), bounded.
func readSkillFile(sk Skill, rel string) (string, error) {
	if sk.Dir == "" {
		return "", fmt.Errorf("read_skill: skill %q is a single file; it has no folder to read %q from", sk.Name, rel)
	}
	b, err := fsbound.New(sk.Dir, "the skill's folder")
	if err != nil {
		return "", fmt.Errorf("read_skill: skill %q: %w", sk.Name, err)
	}
	text, _, truncated, err := readRef(b, b.Real(), filepath.FromSlash(rel), MaxSkillFileBytes)
	if err != nil {
		return "", fmt.Errorf("read_skill: skill %q: %w", sk.Name, err)
	}
	if truncated {
		text += "\n[truncated: the file is larger than " + strconv.Itoa(MaxSkillFileBytes) + " bytes]"
	}
	return text, nil
}

var bracketTag = regexp.MustCompile(`\[[^\]]*\]`)

// cleanSkillName takes what a model passes as a skill name, which is
// often copied from the index with its tags: [...] tags are removed and
// the first word starting with an ASCII letter or digit is the name.
func cleanSkillName(raw string) string {
	for _, w := range strings.Fields(bracketTag.ReplaceAllString(raw, " ")) {
		if c := w[0]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return w
		}
	}
	return ""
}

// skillArg resolves a tool's name argument to a model-visible skill: a
// full name ("review-kit:agent:code-reviewer", "p:plan") exactly, else a
// bare name as the reference does (the first root wins it) — unless that
// is a plugin's agent whose bare name another plugin's agent carries:
// then only the full names work, and the error lists them. (The user's
// and project's agents come first and keep their bare names, as in
// Claude Code.)
func (s *Set) skillArg(tool, raw string) (Skill, error) {
	name := cleanSkillName(raw)
	if name == "" {
		return Skill{}, fmt.Errorf("%s requires a 'name' argument (got %q, which is just a marker/tag)", tool, raw)
	}
	if strings.Contains(name, ":") {
		for _, sk := range s.skills {
			if sk.SlashName() == name && !sk.UserOnly {
				return sk, nil
			}
		}
	} else if sk, ok := s.lookupSkill(name); ok && !sk.UserOnly {
		if sk.Agent && sk.Plugin != "" {
			var full []string
			for _, a := range s.Agents() {
				if a.Name == name && !a.UserOnly && a.Plugin != "" {
					full = append(full, a.SlashName())
				}
			}
			if len(full) > 1 {
				return Skill{}, fmt.Errorf("ambiguous agent %q; use one of: %s", name, strings.Join(full, ", "))
			}
		}
		return sk, nil
	}
	var names []string
	for _, sk := range s.Skills() {
		if !sk.UserOnly && !sk.Agent {
			names = append(names, sk.Name)
		}
	}
	for _, sk := range s.Agents() {
		if !sk.UserOnly {
			names = append(names, sk.SlashName())
		}
	}
	avail := "(none — no skills defined)"
	if len(names) > 0 {
		avail = strings.Join(names, ", ")
	}
	return Skill{}, fmt.Errorf("unknown skill %q — available: %s", name, avail)
}

// decodeArgs strictly decodes a call's arguments: empty means {}, an
// unknown member or trailing data is an error.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}
