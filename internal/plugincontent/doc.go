// Package plugincontent serves the markdown contributions of plugin
// packages, and the user's and project's own: custom slash commands (and
// prompts, served exactly like commands), skills and agents (subagent
// definitions), as Reasonix serves them (PLUGIN_CONTENTS.md §1–§5). It
// owns the front-matter parser, discovery, names and collisions, argument
// rendering, the skills index of the system prompt and the logic of the
// slash_command, run_skill and read_skill tools. It reads files only; it
// never starts a process, talks to a model or knows an editor.
//
// # How the host calls it
//
// At each runtime build (pluginrt), with the enabled packages:
//
//	roots, w1 := plugincontent.Roots(pkgs, plugincontent.Places{Workspace: ws, UserHome: home, ReasonixHome: rxHome})
//	set, w2 := plugincontent.Load(roots, plugincontent.Options{})
//
// Then, per session (agent): append set.SkillIndex() to the system prompt
// once (pluginrt appends it to the host's prompt before
// system_prompt.build); offer set.Tools(env) (env.Runner is the agent's SubagentRunner,
// env.MCPBindings the MCP host's bindings of a plugin); on a typed "/…"
// line that no built-in owns, call set.ResolveSlash(line, env) and send
// Invocation.Text as the user turn, run Invocation.Subagent through the
// runner, or show Invocation.Notice. set.Commands() and set.SlashSkills()
// are what completion, rx/actions and listings show.
//
// # Which directories are served
//
// rx-bridge has no Reasonix home of its own, so of the reference's search
// path it honours (Roots): every enabled plugin's roots first; the
// user's home convention directories (~/.claude, ~/.agent, ~/.agents,
// ~/.reasonix; commands and skills), which Claude Code and Reasonix users
// already keep their own commands and skills in; the configured Reasonix
// home's commands/ and skills/ (reasonix_home), whose plugins the bridge
// already serves; and the workspace's .claude, .agent, .agents and
// .reasonix commands and skills directories. The reference's legacy OS
// application-support and XDG command directories and its built-in
// skills are not served (they belong to a Reasonix install, not to an
// editor host).
//
// # Divergences from the reference, on purpose
//
//   - prompts are served as commands (/<plugin>:<name>); the reference
//     only lists them although its documentation says they are invocable.
//   - A subagent's allow-list (SubagentTools) also selects the rx-bridge
//     tool that does the job of a reference tool name (bash → run_command,
//     grep → search_text, …), and selects MCP tools directly: rx-bridge has
//     no use_capability proxy.
//   - Skill profiles are parsed but not enforced (rx-bridge has no runtime
//     profiles), there is no read_only_skill tool (no plan mode) and no
//     fork_from argument.
//   - Files over MaxFileBytes are refused with a warning.
//   - The workspace boundary (internal/fsbound): the reference follows
//     symlinks anywhere; here every folder and file resolves inside its
//     root's Bound (the workspace, the user's home, the plugin root) or
//     is a warning naming it, and is not read. Walks stop at MaxWalkDepth
//     levels and Options.MaxWalkEntries entries per root.
//   - Names from file names are checked (ValidCommandName, ValidSkillName);
//     a file named otherwise is a warning, not a silent skip.
//   - Claude-format parts (Root.Claude: Claude Code packages and the
//     .claude folders) follow Claude Code's contract where it differs:
//     lenient front matter (ParseClaudeFrontMatter), command arguments
//     and expansions (RenderClaude, InlineRefs, ShellLines),
//     ${CLAUDE_SKILL_DIR}; disable-model-invocation hides a part from
//     the model; agents are listed in an Agents index by full name; the
//     workspace's and user's .claude/agents are served; Memory reads
//     CLAUDE.md and AGENTS.md; read_skill reads a skill folder's files.
//     docs/PLUGIN_AUTHORS.md ("Claude Code packages: what differs from
//     Reasonix") lists each.
package plugincontent
