package agent

import "fmt"

// defaultSystemPrompt is the host's system prompt; %s is the workspace.
const defaultSystemPrompt = `You are a coding agent working in the workspace at %s, inside the user's editor.
Use the tools to read, list and search files, to change them (your edits go to the editor's buffers) and to run programs (exec form, no shell). Paths are relative to the workspace root; nothing outside it is reachable.
Read before you edit, keep changes minimal, and say briefly what you did.`

// DefaultSystemPrompt is the host's system prompt for workspace. A host
// hands it to its extension host (exthost.ManagerOptions.SystemPrompt),
// which settles each generation's prompt from it once per runtime build.
func DefaultSystemPrompt(workspace string) string {
	return fmt.Sprintf(defaultSystemPrompt, workspace)
}

// systemPrompt is the turn's system prompt: the one its generation
// settled when it was built (system_prompt.build and its slot owner run
// there, once per build, never during a turn), so every turn on a
// generation sends the same bytes and a provider's prompt cache keeps
// working. A generation built without a prompt (a runtime whose host gave
// none) leaves the default for the session's workspace.
func (t *turn) systemPrompt() string {
	if p := t.g.Prompt(); p != "" {
		return p
	}
	return DefaultSystemPrompt(t.s.ws().Root)
}
