// Package tools holds the built-in tools an agent session offers the
// model: read_file, list_files, search_text, apply_edit, run_command and
// todo_write (the model's plan, which changes no file).
// Each has a JSON schema, says whether it only reads, and runs confined to
// one workspace: every path is resolved inside one of the workspace's
// roots (the primary one, which relative paths are relative to, and the
// other folders of a multi-root workspace), also through symlinks, and
// anything that would leave them is refused.
//
// Tools never talk to an editor directly. Reads of files the editor has
// open and every edit go through the Documents interface, which the agent
// hands down from its Editor, so edits land in editor buffers with undo.
// Walking tools honour .gitignore files (a matcher of this package, no
// git needed) and every output is capped. Permission, hooks and
// transcripts are the agent's business, not this package's.
package tools
