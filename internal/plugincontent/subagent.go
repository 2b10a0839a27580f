package plugincontent

import (
	"context"
	"path"
	"strings"
)

// SubagentRunner runs a subagent skill or agent as an isolated child turn
// of the current session. The agent package implements it; a session
// without one cannot run subagent skills (run_skill says so).
type SubagentRunner interface {
	// RunSubagent runs req and returns the child's distilled final
	// answer, the only thing that enters the parent's context. It streams
	// the child's progress into the parent's updates, honours ctx's
	// cancellation, and computes the child's tools with SubagentTools.
	RunSubagent(ctx context.Context, req SubagentRequest) (string, error)
}

// SubagentRequest is one subagent run.
type SubagentRequest struct {
	// Skill is the skill's bare name; SlashName its slash name.
	Skill, SlashName string
	// Plugin is the owning plugin's installed name, "" when none.
	Plugin string
	// Instructions are the skill's body (with its MCP bindings section
	// when it has bindings): the child's playbook.
	Instructions string
	// Task is the child's whole input (run_skill's arguments, or the
	// rest of the typed /line).
	Task string
	// AllowedTools is the skill's allow-list (MCP bindings applied);
	// empty means every parent tool. Pass it to SubagentTools.
	AllowedTools []string
	// Model and Effort are overrides, "" for the session's.
	Model, Effort string
	ReadOnly      bool
	// ContinueFrom names an earlier child run to continue (run_skill's
	// continue_from), "" for a fresh one.
	ContinueFrom string
}

// spawningTools are tools that start agents or background jobs; a
// subagent never gets them, whatever its allow-list says, so a child can
// never fan out. They are the reference's names plus run_skill's own.
var spawningTools = map[string]bool{
	"run_skill": true, "read_only_skill": true, "task": true, "read_only_task": true,
	"parallel_tasks": true, "explore": true, "research": true, "review": true,
	"security_review": true, "bash_output": true, "wait": true, "kill_shell": true,
}

// toolAliases lets an allow-list written with the reference's tool names
// (which the Claude mapping of agents also produces) select rx-bridge's
// built-in tools that do that job.
var toolAliases = map[string][]string{
	"read_file":  {"read_file"},
	"write_file": {"apply_edit"},
	"edit_file":  {"apply_edit"},
	"multi_edit": {"apply_edit"},
	"bash":       {"run_command"},
	"grep":       {"search_text"},
	"glob":       {"list_files"},
	"ls":         {"list_files"},
}

// SubagentTools is the tool list of a subagent: the parent's tools (in
// parent order) that allowed selects — by exact name, by a glob with *, ?
// or [ ] (path.Match), or by a reference tool name that an rx-bridge tool
// stands for (bash selects run_command, Read's read_file stays read_file,
// grep selects search_text, …) — and never a tool that spawns agents or
// jobs. An empty allowed selects every parent tool. Names in allowed that
// select nothing are ignored. MCP tools are selected like any other (the
// reference reaches them through a capability proxy rx-bridge does not
// have).
func SubagentTools(parent, allowed []string) []string {
	want := map[string]bool{}
	var globs []string
	for _, a := range allowed {
		if strings.ContainsAny(a, "*?[") {
			globs = append(globs, a)
			continue
		}
		want[a] = true
		for _, alias := range toolAliases[strings.ToLower(a)] {
			want[alias] = true
		}
	}
	var out []string
	for _, t := range parent {
		if spawningTools[t] {
			continue
		}
		ok := len(allowed) == 0 || want[t]
		for _, g := range globs {
			if m, err := path.Match(g, t); err == nil && m {
				ok = true
			}
		}
		if ok {
			out = append(out, t)
		}
	}
	return out
}
