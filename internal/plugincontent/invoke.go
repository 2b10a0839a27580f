package plugincontent

import (
	"errors"
	"fmt"
	"strings"
)

// Env is what invoking skills needs from the session; the zero value is
// valid (no subagent runner, no MCP bindings, no capability gate).
type Env struct {
	// Runner runs subagent skills; nil when the session cannot.
	Runner SubagentRunner
	// MCPBindings returns a plugin's MCP tool bindings (installed name
	// in); nil or an empty result binds nothing.
	MCPBindings func(plugin string) []MCPBinding
	// Ready reports whether a capability ID a skill requires (such as
	// mcp-server:github) is ready; nil treats every one as ready.
	Ready func(capability string) bool
	// Workspace is the local workspace folder a Claude-format command's
	// "@path" references are read from (InlineRefs); "" reads none.
	// Folders are the workspace's other roots, whose files a reference
	// may name by absolute path.
	Workspace string
	Folders   []string
}

// ErrSkillUnavailable is wrapped by the error of a skill whose required
// capabilities are not ready.
var ErrSkillUnavailable = errors.New("skill invocation unavailable")

// check gates an invocation on the skill's requires list.
func (e Env) check(tool string, sk Skill) error {
	if e.Ready == nil {
		return nil
	}
	var missing []string
	for _, c := range sk.Requires {
		if !e.Ready(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: skill %q requires unavailable capabilities: %s: %w", tool, sk.Name, strings.Join(missing, ", "), ErrSkillUnavailable)
	}
	return nil
}

func (e Env) prepare(sk Skill) (body string, allowed []string) {
	if sk.Plugin == "" || e.MCPBindings == nil {
		return sk.Body, sk.AllowedTools
	}
	return prepare(sk, e.MCPBindings(sk.Plugin))
}

// subagentRequest is the run of subagent skill sk on task.
func (e Env) subagentRequest(sk Skill, task, continueFrom string) SubagentRequest {
	body, allowed := e.prepare(sk)
	return SubagentRequest{
		Skill: sk.Name, SlashName: sk.SlashName(), Plugin: sk.Plugin,
		Instructions: body, Task: task, AllowedTools: allowed,
		Model: sk.Model, Effort: sk.Effort, ReadOnly: sk.ReadOnly, ContinueFrom: continueFrom,
	}
}

// renderSkill is an inline skill's text: its header, body and, when args
// is not empty, an "Arguments:" line (skills never use $ARGUMENTS).
func renderSkill(sk Skill, body, args string) string {
	var b strings.Builder
	b.WriteString("# Skill: " + sk.Name)
	if sk.Description != "" {
		b.WriteString("\n> " + sk.Description)
	}
	b.WriteString("\n(scope: " + string(sk.Scope) + " · " + sk.Path + ")")
	if sk.Claude && sk.Dir != "" {
		// Claude Code's progressive disclosure: the files beside
		// SKILL.md are read when the instructions call for them.
		b.WriteString("\nBase directory for this skill: " + sk.Dir + " — read the files its instructions name with read_skill({ name: \"" + sk.Name + "\", file: \"<path relative to it>\" }).")
	}
	b.WriteString("\n\n" + body)
	if args != "" {
		b.WriteString("\n\nArguments: " + args)
	}
	return b.String()
}

// pinned wraps a render so compaction keeps it verbatim.
func pinned(name, render string) string {
	return "<skill-pin name=\"" + name + "\">\n" + render + "\n</skill-pin>"
}

// InvocationKind says what a typed slash line resolved to.
type InvocationKind int

// The kinds of Invocation.
const (
	// InvokeCommand: Text is the rendered command, to send as the user
	// turn.
	InvokeCommand InvocationKind = iota + 1
	// InvokeSkill: Text is the inline skill's render, to send as the user
	// turn.
	InvokeSkill
	// InvokeSubagent: run Subagent through the session's runner; only
	// its answer enters the conversation. When the line had no task,
	// Notice is the usage text instead and nothing runs.
	InvokeSubagent
)

// Invocation is what a typed "/name args" line resolved to.
type Invocation struct {
	Kind InvocationKind
	// Name is the matched command name or skill slash name.
	Name string
	// Text is the user turn to send (InvokeCommand, InvokeSkill).
	Text string
	// Subagent is the run to start (InvokeSubagent with a task).
	Subagent *SubagentRequest
	// Notice, when set, is shown to the user and nothing is sent or run.
	Notice string
	// Claude marks a Claude-format command.
	Claude bool
	// Shell are a Claude-format command's !`cmd` lines (ShellLines),
	// ranges of Text, which the host runs (through its approval) before
	// sending Text, replacing each with its output (ReplaceShellLines).
	Shell []ShellLine
}

// ResolveSlash resolves a typed line "/<name> [args...]" against the
// custom commands (exact name, hidden aliases included) and then the
// skills (ResolveSlashSkill). Arguments are the whitespace-separated words
// after the name (quotes are not honoured, as in the reference), except
// for a Claude-format command, which gets the rest of the line as typed
// (Command.Expand). A command renders its body with them; an inline skill renders its header
// and body with an "Arguments: <words joined by one space>" line; a
// subagent skill asks for a run with that task, or, without one, gives
// the notice "usage: /<name> <task>". ok is false when nothing matches
// (built-ins, MCP prompts and extension actions are the caller's and
// come before or after this as the dispatch order says).
func (s *Set) ResolveSlash(line string, env Env) (inv Invocation, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "/") {
		return Invocation{}, false
	}
	fields := strings.Fields(line[1:])
	if len(fields) == 0 {
		return Invocation{}, false
	}
	name, args := fields[0], fields[1:]
	if c, ok := s.LookupCommand(name); ok {
		rest := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[1:]), name))
		text, shell := c.ExpandShell(rest, env)
		return Invocation{Kind: InvokeCommand, Name: c.Name, Text: text, Claude: c.Claude, Shell: shell}, true
	}
	sk, ok := s.ResolveSlashSkill(name)
	if !ok {
		return Invocation{}, false
	}
	task := strings.Join(args, " ")
	if err := env.check("/"+sk.SlashName(), sk); err != nil {
		return Invocation{Kind: InvokeSkill, Name: sk.SlashName(), Notice: err.Error()}, true
	}
	if sk.Subagent {
		if task == "" {
			return Invocation{Kind: InvokeSubagent, Name: sk.SlashName(), Notice: "usage: /" + sk.Name + " <task>"}, true
		}
		req := env.subagentRequest(sk, task, "")
		return Invocation{Kind: InvokeSubagent, Name: sk.SlashName(), Subagent: &req}, true
	}
	body, _ := env.prepare(sk)
	return Invocation{Kind: InvokeSkill, Name: sk.SlashName(), Text: renderSkill(sk, body, task)}, true
}
