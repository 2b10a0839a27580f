package agent

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// Plugin and settings hooks (package hookrun, PLUGIN_CONTENTS §6) run at
// the moments below, through the hook runner of the pinned generation
// (Pinned.Hooks, nil when it has none), in the reference's order against
// the extension interceptors of the same moment (§9):
//
//   - session start: SessionStart, then session.start (New) — after
//     session.load for a loaded session; their context is prepended to
//     the next prompt that reaches the model;
//   - user input: input.receive, then UserPromptSubmit on the rewritten
//     text (a block ends the turn before it starts; context is prepended
//     to this prompt);
//   - tool call: the approval gate (PermissionRequest before the editor
//     is asked, Notification when it is), permission.decision,
//     tool.before, PreToolUse (a block is the tool's result "blocked:
//     <reason>"), the tool, tool.after, PostToolUse or
//     PostToolUseFailure;
//   - model response: PostLLMCall (may replace the reasoning), then
//     provider.response;
//   - compaction: PreCompact guidance appended, then compaction.prepare;
//   - turn end: Stop or StopFailure after turn_end;
//   - subagent end: SubagentStop (turn.subagentStopHooks, which the
//     subagent runner calls);
//   - session end: SessionEnd, then session.end (Close, Delete).
//
// Every hook that did not pass is a warning notice of the session, its
// text already redacted by hookrun.

// turnHooks is a turn's hook state.
type turnHooks struct {
	// prompted is set once UserPromptSubmit let the prompt through: only
	// such a turn ends with Stop or StopFailure.
	prompted bool
	// bg counts the Notification hooks running in the background; late
	// collects their notices, shown when the turn ends.
	bg     sync.WaitGroup
	lateMu sync.Mutex
	late   []string
	// halted is set when a Claude-format hook answered continue: false:
	// the turn ends once the moment it ran at is over.
	halted bool
	// stopContinues counts the times Stop (SubagentStop) hooks made this
	// turn go on; stopRan is set once they ran for its normal end.
	stopContinues int
	stopRan       bool
}

// maxStopContinues bounds how many times Stop or SubagentStop hooks can
// make one turn go on (besides the step budget): a hook that blocks every
// stop would otherwise loop until the budget runs out.
const maxStopContinues = 8

// halt ends the turn after the current moment because a hook answered
// continue: false.
func (t *turn) halt(ev hookrun.Event, reason string) {
	t.halted = true
	msg := "a " + string(ev) + " hook stopped the turn"
	if reason != "" {
		msg += ": " + reason
	}
	shown := locale.T("a %s hook stopped the turn", ev)
	if reason != "" {
		shown = locale.T("a %s hook stopped the turn: %s", ev, reason)
	}
	t.notice(NoticeBlocked, "", "", shown)
	t.openReason = "not run: " + msg
}

// hookPayload is what every hook of the session is told.
func (s *Session) hookPayload() hookrun.Payload {
	return hookrun.Payload{
		SessionID: s.id, Cwd: s.ws().Root,
		TranscriptPath: transcript.LivePath(s.a.dir, s.id),
		PermissionMode: claudePermissionMode(s.Mode(), s.Approval()),
	}
}

// claudePermissionMode is Claude Code's name for the session's mode and
// approval: plan, or default (ask), acceptEdits (auto: edits run) and
// bypassPermissions (yolo: nothing is asked).
func claudePermissionMode(m Mode, a Approval) string {
	switch {
	case m == ModePlan:
		return "plan"
	case a == ApproveAuto:
		return "acceptEdits"
	case a == ApproveYolo:
		return "bypassPermissions"
	}
	return "default"
}

// hookNotices shows hook notices outside a turn.
func (s *Session) hookNotices(notices []string) {
	for _, n := range notices {
		s.j.emit(Update{Kind: UpdateNotice, Turn: s.st.turns, Notice: &Notice{Kind: NoticeWarning, Text: n}})
	}
}

// sessionStartHooks runs the SessionStart hooks of the current generation
// for s and keeps their context for the next prompt.
func (a *Agent) sessionStartHooks(ctx context.Context, s *Session) {
	p, release := a.opts.Runtime.Acquire()
	defer release()
	r := p.Hooks()
	if r == nil {
		return
	}
	contexts, notices := r.SessionStart(ctx, s.hookPayload())
	s.hookNotices(notices)
	s.mu.Lock()
	s.hookContext = contexts
	s.mu.Unlock()
}

// sessionEndHooks runs the SessionEnd hooks of the current generation.
func (a *Agent) sessionEndHooks(ctx context.Context, s *Session) {
	p, release := a.opts.Runtime.Acquire()
	defer release()
	r := p.Hooks()
	if r == nil {
		return
	}
	pl := s.hookPayload()
	pl.Reason = "other"
	s.hookNotices(r.Observe(ctx, hookrun.SessionEnd, pl))
}

// hooks is the turn's hook runner, nil when there is none.
func (t *turn) hooks() *hookrun.Runner {
	if t.g == nil {
		return nil
	}
	return t.g.Hooks()
}

func (t *turn) hookPayload() hookrun.Payload {
	p := t.s.hookPayload()
	p.Turn = t.n
	return p
}

// toolHookPayload is what a hook about the call tc is told: its cwd is
// the workspace root that holds the path the call concerns (its first
// location: the file, or run_command's cwd), else the primary root.
func (t *turn) toolHookPayload(tc *ToolCall) hookrun.Payload {
	p := t.hookPayload()
	if len(tc.Locations) > 0 {
		ws := t.s.ws()
		if abs, err := ws.Resolve(tc.Locations[0]); err == nil {
			p.Cwd = ws.RootOf(abs)
		}
	}
	return p
}

func (t *turn) hookNotices(notices []string) {
	for _, n := range notices {
		t.notice(NoticeWarning, "", "", n)
	}
}

// userPromptSubmit runs the UserPromptSubmit hooks on text, the prompt as
// input.receive left it, and returns what the model gets: text with the
// hooks' context prepended. A block ends the turn before it starts.
func (t *turn) userPromptSubmit(ctx context.Context, text string) (string, error) {
	r := t.hooks()
	if r == nil {
		return text, nil
	}
	p := t.hookPayload()
	p.Prompt = text
	blocked, contexts, notices := r.UserPromptSubmit(ctx, p)
	t.hookNotices(notices)
	if blocked {
		t.notice(NoticeBlocked, "", "", locale.T("a UserPromptSubmit hook blocked the prompt; the turn did not start"))
		t.stop = StopRefusal
		return "", errEnded
	}
	t.prompted = true
	return hookrun.WrapContext(hookrun.UserPromptSubmit, contexts, text), nil
}

// withStartContext prepends the session's pending SessionStart context
// to text, once.
func (t *turn) withStartContext(text string) string {
	t.s.mu.Lock()
	contexts := t.s.hookContext
	t.s.hookContext = nil
	t.s.mu.Unlock()
	return hookrun.WrapContext(hookrun.SessionStart, contexts, text)
}

// permissionHooks runs the PermissionRequest hooks before the editor is
// asked: decided is set when one denied or allowed the call.
func (t *turn) permissionHooks(ctx context.Context, tc *ToolCall, args string) (verdict extproto.HostDecision, decided bool) {
	r := t.hooks()
	if r == nil {
		return "", false
	}
	p := t.toolHookPayload(tc)
	p.ToolName, p.ToolArgs, p.Subject = tc.Name, json.RawMessage(args), tc.Title
	v, _, notices := r.PermissionRequest(ctx, p)
	t.hookNotices(notices)
	switch v {
	case hookrun.Deny:
		return extproto.HostDeny, true
	case hookrun.Allow:
		return extproto.HostAllow, true
	}
	return "", false
}

// toolUseID is the call's id for Claude-format hooks' tool_use_id: the
// model's, else the session's key.
func (tc *ToolCall) toolUseID() string {
	if tc.ID != "" {
		return tc.ID
	}
	return tc.Key
}

// notifyPermissionPrompt fires the Notification hooks in the background
// as the editor is asked; the turn waits for them when it ends.
func (t *turn) notifyPermissionPrompt(ctx context.Context, tc *ToolCall) {
	r := t.hooks()
	if r == nil {
		return
	}
	p := t.toolHookPayload(tc)
	p.NotificationType = "permission_prompt"
	p.Message = "rx-bridge needs your permission to use " + tc.Name
	t.bg.Add(1)
	go func() {
		defer t.bg.Done()
		notices := r.Observe(context.WithoutCancel(ctx), hookrun.Notification, p)
		t.lateMu.Lock()
		t.late = append(t.late, notices...)
		t.lateMu.Unlock()
	}()
}

// preToolUse runs the PreToolUse hooks for the call about to run.
func (t *turn) preToolUse(ctx context.Context, tc *ToolCall, args string) hookrun.ToolVerdict {
	r := t.hooks()
	if r == nil {
		return hookrun.ToolVerdict{}
	}
	p := t.toolHookPayload(tc)
	p.ToolName, p.ToolArgs, p.ToolUseID = tc.Name, json.RawMessage(args), tc.toolUseID()
	v := r.PreToolUse(ctx, p)
	t.hookNotices(v.Notices)
	if v.Halt {
		t.halt(hookrun.PreToolUse, v.StopReason)
	}
	return v
}

// postToolUse runs PostToolUse, or PostToolUseFailure for a failed call,
// with the result tool.after settled on, and returns the result the
// model gets: with what Claude-format hooks told the model (a decision
// "block" reason, exit 2 stderr, additionalContext) appended.
func (t *turn) postToolUse(ctx context.Context, tc *ToolCall, args, result string, isErr, interrupted bool) string {
	r := t.hooks()
	if r == nil {
		return result
	}
	p := t.toolHookPayload(tc)
	p.ToolName, p.ToolArgs, p.ToolUseID = tc.Name, json.RawMessage(args), tc.toolUseID()
	ev := hookrun.PostToolUse
	if isErr {
		ev, p.Error, p.IsInterrupt = hookrun.PostToolUseFailure, result, interrupted
	} else {
		p.ToolResult = result
	}
	f := r.Feedback(ctx, ev, p)
	t.hookNotices(f.Notices)
	if f.Halt {
		t.halt(ev, f.StopReason)
	}
	if len(f.Model) == 0 {
		return result
	}
	return strings.TrimRight(result, "\n") + "\n\n" + hookrun.WrapContext(ev, f.Model, "")
}

// postLLMCall runs the PostLLMCall hooks on a response's reasoning and
// returns the reasoning provider.response gets.
func (t *turn) postLLMCall(ctx context.Context, reasoning string) string {
	r := t.hooks()
	if r == nil {
		return reasoning
	}
	p := t.hookPayload()
	p.Reasoning = reasoning
	out, notices := r.PostLLMCall(ctx, p)
	t.hookNotices(notices)
	if out != reasoning {
		t.notice(NoticeReplaced, "", "", locale.T("a PostLLMCall hook replaced the reasoning; the history keeps this text:")+"\n"+out)
	}
	return out
}

// preCompact runs the PreCompact hooks and returns their guidance, to
// append to the compaction instructions ("" for none).
func (t *turn) preCompact(ctx context.Context) string {
	r := t.hooks()
	if r == nil {
		return ""
	}
	p := t.hookPayload()
	p.Trigger = "auto"
	guidance, notices := r.PreCompact(ctx, p)
	t.hookNotices(notices)
	if guidance == "" {
		return ""
	}
	return "\n\n" + guidance
}

// stopHooks runs, when the model stopped of itself, the Stop hooks of a
// user's turn (SubagentStop of a subagent's), and reports whether the
// turn goes on: a Claude-format hook's decision "block" (or exit 2) gives
// the model its reason as the next instruction, as Claude Code does. At
// most maxStopContinues times per turn, and never past the step budget:
// a notice says so when a hook asks once more.
func (t *turn) stopHooks(ctx context.Context, step int) bool {
	r := t.hooks()
	if r == nil || (t.sub == nil && !t.prompted) {
		return false
	}
	t.drainNotifications()
	p := t.hookPayload()
	ev := hookrun.Stop
	if t.sub != nil {
		ev, p.LastAssistantText = hookrun.SubagentStop, lastAnswer(t.sub.history)
	} else {
		p.LastAssistantText = t.lastAssistantText()
	}
	p.StopHookActive = t.stopContinues > 0
	f := r.Feedback(context.WithoutCancel(ctx), ev, p)
	t.stopRan = true
	t.hookNotices(f.Notices)
	if f.Halt || len(f.Model) == 0 {
		return false
	}
	if t.stopContinues >= maxStopContinues || step >= t.steps {
		t.notice(NoticeWarning, "", "", locale.T("a %s hook asked the model to go on once more; the turn ends here (at most %d times per turn, within the step budget of %d model requests)", ev, maxStopContinues, t.steps))
		return false
	}
	t.stopContinues++
	t.stopRan = false
	t.notice(NoticeWarning, "", "", locale.T("a %s hook asked the model to go on (%d of at most %d): %s", ev, t.stopContinues, maxStopContinues, strings.Join(f.Model, "\n")))
	t.addMessage(&extproto.ProviderMessage{Role: extproto.RoleUser, Content: hookrun.WrapContext(ev, f.Model, "")})
	return true
}

// endHooks closes a turn's hooks after its turn_end: it waits for the
// Notification hooks and shows their notices, then runs Stop, or
// StopFailure when the turn failed (err) or was cancelled. A cancelled
// turn's hooks still run, each bounded by its timeout.
func (t *turn) endHooks(ctx context.Context, err error) {
	t.drainNotifications()
	r := t.hooks()
	if r == nil || !t.prompted || (err == nil && t.stopRan && t.stop == StopEndTurn) {
		// No hooks, no turn, or Stop already ran as the model stopped.
		return
	}
	p := t.hookPayload()
	p.LastAssistantText = t.lastAssistantText()
	ev := hookrun.Stop
	switch {
	case err != nil:
		ev, p.Error = hookrun.StopFailure, redactErr(err)
	case t.stop == StopCancelled:
		ev, p.Error, p.IsInterrupt = hookrun.StopFailure, "cancelled", true
	}
	t.hookNotices(r.Observe(context.WithoutCancel(ctx), ev, p))
}

// drainNotifications waits for the Notification hooks the turn started
// and shows their notices.
func (t *turn) drainNotifications() {
	t.bg.Wait()
	t.lateMu.Lock()
	late := t.late
	t.late = nil
	t.lateMu.Unlock()
	t.hookNotices(late)
}

// subagentStopHooks ends the hooks of child, a subagent's nested turn
// started by t: it waits for the Notification hooks child started (their
// notices are child's), then runs the SubagentStop hooks, told the
// subagent's last assistant text, their notices t's. The subagent runner
// calls it once child's rounds are over, however they ended. A subagent's
// turn runs no UserPromptSubmit, SessionStart or Stop hooks (the
// reference fires those around user turns only); its rounds and tool
// calls run PostLLMCall and the tool hooks like any.
func (t *turn) subagentStopHooks(ctx context.Context, child *turn, lastAssistantText string) {
	child.drainNotifications()
	r := t.hooks()
	if r == nil {
		return
	}
	p := t.hookPayload()
	p.LastAssistantText = lastAssistantText
	t.hookNotices(r.Observe(context.WithoutCancel(ctx), hookrun.SubagentStop, p))
}

// lastAssistantText is the text of the turn's last assistant message
// that has any.
func (t *turn) lastAssistantText() string {
	h := t.s.st.history
	for i := len(h) - 1; i >= 0 && h[i].Role != extproto.RoleUser; i-- {
		if h[i].Role == extproto.RoleAssistant && h[i].Content != "" {
			return h[i].Content
		}
	}
	return ""
}
