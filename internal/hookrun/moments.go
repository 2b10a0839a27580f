package hookrun

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// The typed helpers below are what the agent calls at each moment
// (package doc, "Calling the runner"). Each returns the notices to show;
// the helpers set the event, so a caller cannot mix them up.

// ToolVerdict is what the PreToolUse hooks decided.
type ToolVerdict struct {
	// Block, when not empty, refuses the call: the tool result is
	// "blocked: " + Block.
	Block string
	// UpdatedInput is the tool input a Claude-format hook rewrote (Claude
	// Code's updatedInput), in Claude's shape: ReasonixToolInput maps it
	// back. The changed call still needs the user's approval.
	UpdatedInput json.RawMessage
	// Halt ends the turn after this call (continue: false); StopReason is
	// for the user. The call does not run.
	Halt       bool
	StopReason string
	Notices    []string
}

// PreToolUse runs before a tool executes, after the permission gate.
// A permissionDecision "allow" (or the legacy decision "approve") changes
// nothing: the gate already ran, and a hook never skips the user's
// approval in rx-bridge.
func (r *Runner) PreToolUse(ctx context.Context, p Payload) ToolVerdict {
	rep := r.Run(ctx, PreToolUse, p)
	v := ToolVerdict{Notices: rep.Notices(), Halt: rep.Halted, StopReason: rep.StopReason}
	if rep.Blocked {
		v.Block = rep.Reason
		if v.Block == "" {
			v.Block = "blocked by a PreToolUse hook"
		}
		return v
	}
	if v.Halt {
		v.Block = "the turn was stopped by a PreToolUse hook"
		if v.StopReason != "" {
			v.Block += ": " + v.StopReason
		}
		return v
	}
	for _, res := range rep.Results {
		if res.Hook.Claude && res.Decision == Pass && res.Output.UpdatedInput != nil {
			v.UpdatedInput = res.Output.UpdatedInput
		}
	}
	return v
}

// Feedback is what the PostToolUse (PostToolUseFailure), Stop or
// SubagentStop hooks said.
type Feedback struct {
	// Model are the texts for the model: decision "block" reasons and exit
	// 2 stderr of Claude-format hooks, then (PostToolUse) their
	// additionalContext. For Stop and SubagentStop they ask the model to
	// go on.
	Model []string
	// Halt ends the turn (continue: false); StopReason is for the user.
	Halt       bool
	StopReason string
	Notices    []string
}

// Feedback runs PostToolUse, PostToolUseFailure, Stop, StopFailure or
// SubagentStop hooks and returns what they tell the model.
func (r *Runner) Feedback(ctx context.Context, ev Event, p Payload) Feedback {
	rep := r.Run(ctx, ev, p)
	f := Feedback{Notices: rep.Notices(), Halt: rep.Halted, StopReason: rep.StopReason}
	if ev == StopFailure {
		return f
	}
	for _, res := range rep.Results {
		if res.Feedback != "" {
			f.Model = append(f.Model, res.Feedback)
		}
	}
	if ev == PostToolUse || ev == PostToolUseFailure {
		for _, res := range rep.Results {
			if c := strings.TrimSpace(res.Output.AdditionalContext); c != "" && res.Hook.Claude && res.Decision == Pass {
				f.Model = append(f.Model, c)
			}
		}
	}
	return f
}

// Verdict is what PermissionRequest hooks decided.
type Verdict int

// The PermissionRequest verdicts.
const (
	// Ask shows the approval dialog as usual.
	Ask Verdict = iota
	// Deny refuses the request without a dialog (a Claude-format hook
	// exited 2, timed out or answered deny).
	Deny
	// Allow approves it without a dialog, unless the request needs fresh
	// human approval anyway (the caller knows which do).
	Allow
)

// PermissionRequest runs inside the approval path, before the dialog.
// Only Claude-format hooks can decide; native ones observe.
func (r *Runner) PermissionRequest(ctx context.Context, p Payload) (Verdict, string, []string) {
	rep := r.Run(ctx, PermissionRequest, p)
	if rep.Blocked {
		return Deny, rep.Reason, rep.Notices()
	}
	for _, res := range rep.Results {
		if res.Hook.Claude && res.Decision == Pass && res.Output.Allow {
			return Allow, "", rep.Notices()
		}
	}
	return Ask, "", rep.Notices()
}

// UserPromptSubmit runs on the user's text after the input.receive
// interceptors rewrote it. blocked means the turn must not start (the
// notices already say why). contexts are what Claude-format hooks printed
// on success (plain stdout or hookSpecificOutput.additionalContext), to
// prepend to this prompt with WrapContext, the way Claude Code adds them.
// The reference ignores UserPromptSubmit context; issue 17 asks for it.
func (r *Runner) UserPromptSubmit(ctx context.Context, p Payload) (blocked bool, contexts []string, notices []string) {
	rep := r.Run(ctx, UserPromptSubmit, p)
	if rep.Blocked || rep.Halted {
		return true, nil, rep.Notices()
	}
	for _, res := range rep.Results {
		if c := res.context(); c != "" && res.Hook.Claude {
			contexts = append(contexts, c)
		}
	}
	return false, contexts, rep.Notices()
}

// SessionStart runs once, lazily, before the first turn of a session
// (again after /new or /clear with Source "clear", and after a resume).
// The contexts are the passing hooks' plain stdout or
// hookSpecificOutput.additionalContext; WrapContext prepends them to the
// next user turn.
func (r *Runner) SessionStart(ctx context.Context, p Payload) (contexts []string, notices []string) {
	if p.Source == "" {
		p.Source = "startup"
	}
	rep := r.Run(ctx, SessionStart, p)
	for _, res := range rep.Results {
		if c := res.context(); c != "" {
			contexts = append(contexts, c)
		}
	}
	return contexts, rep.Notices()
}

// context is what a passing hook contributes as context.
func (res Result) context() string {
	if res.Decision != Pass || res.Async {
		return ""
	}
	if res.Output.JSON {
		return strings.TrimSpace(res.Output.AdditionalContext)
	}
	return res.Stdout
}

// PostLLMCall runs after a model response, before the provider.response
// interceptors: the first passing hook's non-empty stdout replaces the
// reasoning shown; otherwise p.Reasoning comes back.
func (r *Runner) PostLLMCall(ctx context.Context, p Payload) (reasoning string, notices []string) {
	rep := r.Run(ctx, PostLLMCall, p)
	for _, res := range rep.Results {
		if res.Decision == Pass && !res.Async && res.Stdout != "" {
			return res.Stdout, rep.Notices()
		}
	}
	return p.Reasoning, rep.Notices()
}

// PreCompact runs before compaction: every hook's non-empty stdout,
// joined by newlines, is extra guidance appended to the compaction
// instructions before the compaction.prepare interceptors see them.
func (r *Runner) PreCompact(ctx context.Context, p Payload) (guidance string, notices []string) {
	rep := r.Run(ctx, PreCompact, p)
	var parts []string
	for _, res := range rep.Results {
		if res.Stdout != "" {
			parts = append(parts, res.Stdout)
		}
	}
	return strings.Join(parts, "\n"), rep.Notices()
}

// Observe runs an event whose hooks only observe (PostToolUse,
// PostToolUseFailure, Stop, StopFailure, SessionEnd, SubagentStop,
// Notification) and returns the notices.
func (r *Runner) Observe(ctx context.Context, ev Event, p Payload) []string {
	return r.Run(ctx, ev, p).Notices()
}

// Context limits (PLUGIN_CONTENTS §6.8).
const (
	maxContextItem  = 10000
	maxContextTotal = 20000
)

// WrapContext prepends hook contexts to text as
//
//	<hook-context event="E">\n<c1>\n\n---\n<c2>\n</hook-context>\n\n<text>
//
// with each item clipped to 10 000 runes and the whole to 20 000 (the
// items that no longer fit are counted), and any literal
// "</hook-context>" escaped. No non-empty item: text unchanged.
func WrapContext(ev Event, items []string, text string) string {
	var kept []string
	total, omitted := 0, 0
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if total >= maxContextTotal {
			omitted++
			continue
		}
		it = strings.ReplaceAll(it, "</hook-context>", `<\/hook-context>`)
		r := []rune(it)
		limit := min(maxContextItem, maxContextTotal-total)
		if len(r) > limit {
			it = string(r[:limit]) + "\n[truncated]"
			r = r[:limit]
		}
		total += len(r)
		kept = append(kept, it)
	}
	if len(kept) == 0 {
		return text
	}
	body := strings.Join(kept, "\n\n---\n")
	if omitted > 0 {
		body += fmt.Sprintf("\n[truncated: omitted %d additional hook context item(s)]", omitted)
	}
	out := fmt.Sprintf("<hook-context event=%q>\n%s\n</hook-context>", ev, body)
	if text != "" {
		out += "\n\n" + text
	}
	return out
}
