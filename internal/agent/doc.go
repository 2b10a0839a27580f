// Package agent runs in-editor agent sessions: a session belongs to one
// workspace, holds the conversation with one model, and runs turns. A
// turn follows SPEC §12 in order, with every hook point and replacement
// slot of the extension host: input.receive, agent.before_start, the
// system prompt its generation settled at build time (system_prompt.build
// runs there, once per build), then provider rounds (context.prepare,
// provider.request, the stream, provider.response) and, for each tool
// call, the host's permission verdict, permission.decision, tool.before,
// the tool (or its tool:<name> owner) and tool.after — until the model
// stops, the step budget ends, a plugin blocks, or the user cancels. Long
// histories are compacted through compaction.prepare/compaction.complete,
// and sessions emit session.start/save/load/rotate/end, where only the
// session_policy owner rules and every other plugin observes.
// The plugin packages' hooks (hookrun, from the pinned generation) run
// beside these points in the reference's order (hookpoints.go).
//
// A turn pins one runtime generation from start to end. Everything a
// session shows is a typed Update shaped after the Agent Client
// Protocol's session/update kinds, delivered in order; the same updates,
// with streamed chunks merged, go to a JSONL transcript under the bridge
// home's sessions/ directory, from which Load replays a session exactly.
//
// The pinned generation's package contents take part in every turn: its
// slash_command, run_skill, read_skill and MCP tools are offered beside
// the built-ins, a typed "/…" line runs a command, skill, subagent or MCP
// prompt (Session.Resolve says which), and subagents run as nested turns
// whose updates carry a SubagentRef.
//
// The package is editor-agnostic: it defines the Editor interface (open
// documents, edits, permission prompts) that the bridge implements over
// LSP and the terminal chat implements on stdin/stdout, and it never
// renders anything itself. The built-in tools live in agent/tools, the
// transcript files in agent/transcript. docs/ARCHITECTURE.md ("Agent")
// documents the semantics chosen where the specification leaves room.
package agent
