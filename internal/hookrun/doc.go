// Package hookrun owns plugin and settings hooks (PLUGIN_CONTENTS §6):
// which hooks exist and in what order, which fire for an event and tool,
// how each is started (exec, shell or legacy form, or a context file), what
// it is told on stdin (native camelCase or Claude snake_case with Claude
// tool names and inputs), what its exit code and JSON output decide, and
// the lifetime of its process tree: killed on timeout, on cancellation and
// on Close, its output capped at 256 KiB per stream and redacted before any
// caller sees it.
//
// It never decides what an agent does with a decision: the agent refuses
// the tool, drops the turn, prepends the context. It imports manifest (the
// parsed package types), redact, and nothing above them.
//
// # Sources and order
//
// Load resolves, in firing order:
//
//  1. <workspace>/.reasonix/settings.json — only when Sources.ProjectSettings
//     is set. Reasonix runs these always; an editor host opens any
//     repository, and in rx-bridge a repository never starts programs by
//     being opened (manifest.LoadWorkspace refuses runtimes the same way).
//     With the option off, a file that declares hooks yields a Warning.
//     Then <workspace>/.claude/settings.json and settings.local.json,
//     Claude Code's project settings, their hooks in Claude format, under
//     the same option and with the same Warning.
//  2. every enabled package, in installed-name order; within a package
//     events by name, entries in declaration order: the v1 manifest's hooks
//     (or a legacy manifest's inline hooks, or the Claude hooks files it
//     names), then the Claude Code compatibility files hooks/hooks.json and
//     .claude/settings.json (ParseClaudeHooks), a root CLAUDE.md as a
//     SessionStart context file, and for Codex packages
//     hooks/session-start-codex as a SessionStart legacy hook.
//  3. Sources.GlobalSettings, in order: the settings.json files the user
//     owns. Phase 2 should pass <configured Reasonix home>/settings.json
//     when config.toml names a Reasonix home (the user opted into that
//     home's plugins, so into its hooks too), then <rx-bridge
//     home>/settings.json.
//
// Hooks of unknown events are dropped; malformed files become warnings and
// contribute nothing.
//
// # Calling the runner (phase 2)
//
// One Runner per agent session (or per pinned plugin snapshot), built from
// the snapshot's enabled packages; Close it when the session or the host
// ends. Each moment calls one helper, in this order against the Extension
// Protocol interceptors at the same moment (§9):
//
//   - User input: compose → input.receive interceptors (may rewrite or
//     block) → UserPromptSubmit(prompt = the rewritten text, turn). Blocked:
//     the turn silently does not start (show the notices). Contexts go
//     through WrapContext and are prepended to the prompt.
//   - Session start (lazily, before the first turn; again after /new or
//     /clear with Source "clear"; after resume): SessionStart → then the
//     session.start observation event. Its contexts, WrapContext'ed, are
//     prepended to the next user turn (one shot).
//   - Tool call: parse → tool.before interceptors → the host permission
//     gate, whose approval path first calls PermissionRequest (Deny: refuse
//     without dialog; Allow: approve without dialog unless the request
//     needs fresh human approval; Ask: the dialog) and fires Notification
//     (NotificationType "permission_prompt", in a goroutine) when the
//     dialog shows → permission.decision interceptors (may override either
//     way) → write leases/checkpoint → PreToolUse (a non-empty block makes
//     the tool result "blocked: <block>") → execute → tool.after
//     interceptors → Observe(PostToolUse) or, when the tool failed,
//     Observe(PostToolUseFailure) with Error and IsInterrupt set (the
//     native PostToolUse hooks run too). A proxied call gives the real
//     target tool's name and arguments. Installed MCP tools: tool.before →
//     the MCP fast path (explicit deny only) → PreToolUse → …
//   - Model response: PostLLMCall(reasoning, turn) replaces the displayed
//     reasoning → provider.response interceptors.
//   - Compaction: PreCompact(trigger "auto"/"manual") guidance is appended
//     to the compaction instructions → compaction.prepare interceptors see
//     it.
//   - Turn end (deferred, after the turn returned): Observe(Stop) with
//     LastAssistantText and Turn, or Observe(StopFailure) with Error and
//     IsInterrupt (the native Stop hooks run too).
//   - Subagent end: Observe(SubagentStop). Session end: Observe(SessionEnd)
//     with Reason "clear" or "other".
//
// Every helper returns notices (redacted, one per hook that did not pass)
// to show as warnings. Listing gives the hooks for /hooks and plugin show.
//
// # Processes
//
// A hook's process starts through StartFunc, the one seam to the
// operating system; the os/exec implementation here (process group on
// Unix, taskkill /T on Windows) becomes the proctree package's at merge.
// Exec-form arguments are passed literally; shell form is sh -c on Unix,
// Git Bash or PowerShell on Windows (platform.command is a pure function
// of the OS, tested for every OS).
package hookrun
