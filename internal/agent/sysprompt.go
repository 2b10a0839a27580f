package agent

import (
	"fmt"
	"strings"
)

// defaultSystemPrompt is the host's system prompt; %s is the workspace.
const defaultSystemPrompt = `You are a coding agent working in the workspace at %s, inside the user's editor.
Use the tools to read, list and search files, to change them (your edits go to the editor's buffers) and to run programs (exec form, no shell). Paths are relative to the workspace root; nothing outside it is reachable.
Read before you edit, keep changes minimal, and say briefly what you did.`

// otherRoots tells the model of a multi-root workspace's other folders.
const otherRoots = `
The workspace has other folders too, reachable by absolute path: %s. Run a command in one of them with its path as cwd.`

// DefaultSystemPrompt is the host's system prompt for workspace, whose
// other folders (a multi-root workspace) are more. A host hands it to its
// extension host (exthost.ManagerOptions.SystemPrompt), which settles
// each generation's prompt from it once per runtime build.
func DefaultSystemPrompt(workspace string, more ...string) string {
	p := fmt.Sprintf(defaultSystemPrompt, workspace)
	if len(more) > 0 {
		p += fmt.Sprintf(otherRoots, strings.Join(more, ", "))
	}
	return p
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
	roots := t.s.ws().Roots()
	return DefaultSystemPrompt(roots[0], roots[1:]...)
}
