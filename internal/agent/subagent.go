package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

// SubagentRef marks the updates of a subagent run: its progress (the
// model's text and reasoning, its tool calls and their permissions, its
// notices) streams into the parent session's updates with this set, in
// the parent's turn.
type SubagentRef struct {
	// ID names the run within the session ("sub<turn>.<n>"). The IDs of
	// the run's tool calls are prefixed with it and a "/", so they never
	// collide with the parent's.
	ID string `json:"id"`
	// Name is the slash name (<plugin>:agent:<name>, <plugin>:<skill>,
	// <skill>), Skill the bare name run_skill takes.
	Name  string `json:"name"`
	Skill string `json:"skill"`
	// ParentToolCallID is the parent's run_skill call that started the
	// run; empty when the user typed its slash command.
	ParentToolCallID string `json:"parentToolCallId,omitempty"`
}

// subRun is what a subagent's turn has of its own: its mark, its tools
// and its history, which never joins the session's.
type subRun struct {
	ref     *SubagentRef
	tools   *tools.Set
	history []extproto.ProviderMessage
}

// subagentIntro introduces a subagent's playbook in its system prompt.
const subagentIntro = "\n\n# Subagent: %s\n\nYou are running as a subagent of the conversation above this prompt, which you cannot see. " +
	"Your only input is the task in the user message. Work on it with your tools; your final message is your answer, " +
	"the only thing the parent conversation receives, so make it complete and self-contained.\n\n"

// RunSubagent implements plugincontent.SubagentRunner for run_skill: req
// runs as a nested turn of this one (runSubagent) and its final answer is
// the tool's result.
func (t *turn) RunSubagent(ctx context.Context, req plugincontent.SubagentRequest) (string, error) {
	answer, child, err := t.runSubagent(ctx, req)
	if err == nil && child != nil && child.block != nil {
		b := child.block
		err = fmt.Errorf("subagent %s stopped: extension %s blocked %s: %s", req.SlashName, b.Plugin, b.Point, b.Reason)
	}
	return answer, err
}

// runSubagent runs req as a nested turn: the task is its only input, its
// system prompt the session's plus the skill's instructions, its tools
// the parent's this round as plugincontent.SubagentTools selects them
// (read-only ones only when the skill asks; never run_skill, so a
// subagent cannot start another), its model the skill's when the catalog
// serves it (else the session's) with the skill's effort, and its step
// budget the session's. Every hook point applies to its rounds and tool
// calls as to the parent's, and its progress streams into the parent's
// updates marked with a SubagentRef. Its history is its own: only the
// answer (its last text) is returned. The parent's cancel reaches it
// through ctx.
func (t *turn) runSubagent(ctx context.Context, req plugincontent.SubagentRequest) (string, *turn, error) {
	if t.sub != nil {
		return "", nil, errors.New("a subagent cannot start another subagent")
	}
	if req.ContinueFrom != "" {
		return "", nil, fmt.Errorf("run_skill: continue_from is not supported by this host (skill %q); start a fresh run with the whole task", req.Skill)
	}
	t.subs++
	ref := &SubagentRef{ID: fmt.Sprintf("sub%d.%d", t.n, t.subs), Name: req.SlashName, Skill: req.Skill, ParentToolCallID: t.current}
	model := t.model
	if req.Model != "" {
		if m, err := t.models.Lookup(req.Model); err == nil {
			model = m
		}
	}
	parent := t.tools
	if parent == nil {
		parent = t.toolSet()
	}
	var names []string
	for _, sc := range parent.Schemas() {
		names = append(names, sc.Name)
	}
	var list []tools.Tool
	for _, name := range plugincontent.SubagentTools(names, req.AllowedTools) {
		if tool, ok := parent.Lookup(name); ok && (!req.ReadOnly || tool.ReadOnly()) {
			list = append(list, tool)
		}
	}
	child := &turn{
		s: t.s, g: t.g, models: t.models, model: model, effort: req.Effort, n: t.n, steps: t.steps,
		sub: &subRun{ref: ref, tools: tools.NewSet(list...), history: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: req.Task}}},
	}
	child.tools = child.sub.tools
	child.notice(NoticeSubagent, "", req.Plugin, locale.T("subagent /%s started (model %s, %d tools)", req.SlashName, model.Ref, child.tools.Len()))
	system := t.systemPrompt() + fmt.Sprintf(subagentIntro, req.SlashName) + req.Instructions
	err := child.loop(ctx, system)
	if !child.stopRan {
		// It ended otherwise than by the model stopping (stopHooks ran
		// SubagentStop then).
		t.subagentStopHooks(ctx, child, lastAnswer(child.sub.history))
	}
	addUsage(&t.usage, &child.usage)
	if errors.Is(err, errEnded) {
		err = nil
	}
	answer := lastAnswer(child.sub.history)
	switch {
	case err != nil:
		return "", child, fmt.Errorf("subagent %s: %w", req.SlashName, err)
	case child.stop == StopCancelled:
		return "", child, fmt.Errorf("subagent %s was cancelled: %w", req.SlashName, context.Canceled)
	case child.block != nil:
		return "", child, nil
	case child.stop == StopMaxTurnRequests:
		answer = strings.TrimSpace(answer + fmt.Sprintf("\n\n(the subagent reached its step budget of %d model requests before finishing)", child.steps))
	case child.stop == StopMaxTokens || child.stop == StopRefusal:
		answer = strings.TrimSpace(answer + fmt.Sprintf("\n\n(the subagent stopped: %s)", child.stop))
	}
	child.notice(NoticeSubagent, "", req.Plugin, locale.T("subagent /%s finished (%s)", req.SlashName, child.stop))
	if answer == "" {
		return "", child, fmt.Errorf("subagent %s gave no answer", req.SlashName)
	}
	return answer, child, nil
}

// lastAnswer is the text of the last assistant message.
func lastAnswer(history []extproto.ProviderMessage) string {
	for i := len(history) - 1; i >= 0; i-- {
		if m := history[i]; m.Role == extproto.RoleAssistant && m.Content != "" {
			return m.Content
		}
	}
	return ""
}
