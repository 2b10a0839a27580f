package agent

import (
	"context"
	"fmt"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// defaultSystemPrompt is the host's system prompt; %s is the workspace.
const defaultSystemPrompt = `You are a coding agent working in the workspace at %s, inside the user's editor.
Use the tools to read, list and search files, to change them (your edits go to the editor's buffers) and to run programs (exec form, no shell). Paths are relative to the workspace root; nothing outside it is reachable.
Read before you edit, keep changes minimal, and say briefly what you did.`

// systemPrompt returns the turn's system prompt. system_prompt.build
// (with its slot owner) runs once per generation and session; later turns
// on the same generation reuse the result, so the prompt stays
// byte-identical and a provider's prompt cache keeps working. A block
// ends the turn and is not cached.
func (t *turn) systemPrompt(ctx context.Context) (string, error) {
	s := t.s
	if s.prompt.ok && s.prompt.gen == t.g.ID {
		return s.prompt.text, nil
	}
	prompt := s.a.opts.SystemPrompt
	if prompt == "" {
		prompt = fmt.Sprintf(defaultSystemPrompt, s.ws.Root)
	}
	out, err := t.hook(ctx, &protocol.SystemPromptBuildPayload{Prompt: prompt, WorkspaceRoot: s.ws.Root})
	if err != nil {
		return "", err
	}
	prompt = out.Payload.(*protocol.SystemPromptBuildPayload).Prompt
	s.prompt.gen, s.prompt.text, s.prompt.ok = t.g.ID, prompt, true
	return prompt, nil
}
