package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// ToolExitPlanMode is the tool a session in plan mode offers the model to
// present its plan: the user approves leaving plan mode through a
// permission request, the session is in normal mode from then on, and
// the turn goes on to carry the plan out (Reasonix's and Claude Code's
// plan workflow).
const ToolExitPlanMode = "exit_plan_mode"

// planTool is exit_plan_mode. Its permission request is the plan
// approval: always asked, whatever the approval mode, and no hook or
// plugin may answer it for the user (approving a plan needs a person, as
// in Reasonix). Its Run only reports the approval.
type planTool struct{}

func (planTool) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name: ToolExitPlanMode,
		Description: "Present your plan to the user and ask to leave plan mode. Call it once the plan is complete " +
			"(what you will change, in which files, in which order). If the user approves, the session leaves plan " +
			"mode and you carry the plan out in this turn; if not, stay in plan mode and revise the plan.",
		Parameters: json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"The plan, in Markdown."}},"required":["plan"],"additionalProperties":false}`),
	}
}

// ReadOnly: the call itself changes nothing (plan mode lets it run); the
// approval it asks for does.
func (planTool) ReadOnly() bool   { return true }
func (planTool) Kind() tools.Kind { return tools.Kind("switch_mode") }

func (planTool) Describe(json.RawMessage) (string, []string) {
	return "Leave plan mode and carry out this plan?", nil
}

func (planTool) Run(context.Context, *tools.Env, json.RawMessage) (string, error) {
	return "The user approved the plan: the session has left plan mode. Carry the plan out now.", nil
}

// planText is the plan of an exit_plan_mode call's arguments.
func planText(args string) (string, error) {
	var a struct {
		Plan string `json:"plan"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "", fmt.Errorf("the arguments are not {\"plan\": \"…\"}: %v", err)
	}
	if strings.TrimSpace(a.Plan) == "" {
		return "", fmt.Errorf("the plan is empty: give the plan in \"plan\"")
	}
	return a.Plan, nil
}

// approvePlan asks the user whether the session may leave plan mode to
// carry out the plan of call tc. Allowed, the session is in normal mode
// (a notice says so); denied, the model gets the refusal and stays in
// plan mode; a withdrawn prompt ends the turn as cancelled.
func (t *turn) approvePlan(ctx context.Context, tc *ToolCall, args string) (allowed bool, refusal string, err error) {
	if t.s.Mode() != ModePlan {
		return false, "the session is not in plan mode; carry on without exit_plan_mode", nil
	}
	if _, perr := planText(args); perr != nil {
		return false, perr.Error(), nil
	}
	t.emit(Update{Kind: UpdatePermissionRequest, Permission: &Permission{ToolCallID: tc.ID, ToolCallKey: tc.Key, Tool: tc.Name}})
	t.notifyPermissionPrompt(ctx, tc)
	t.s.j.checkpoint()
	outcome, err := t.s.a.opts.Editor.RequestPermission(ctx, PermissionRequest{SessionID: t.s.id, ToolCall: *tc, Args: args})
	if err != nil {
		return false, "", t.fail(ctx, fmt.Errorf("asking the editor to approve the plan: %w", err))
	}
	by := Permission{ToolCallID: tc.ID, ToolCallKey: tc.Key, Tool: tc.Name, DecidedBy: DecidedByUser}
	switch outcome {
	case PermissionAllow, PermissionAllowSession:
		if err := t.s.SetMode(ModeNormal); err != nil {
			return false, "", err
		}
		by.Outcome = PermissionAllow
		t.emit(Update{Kind: UpdatePermissionOutcome, Permission: &by})
		t.emit(Update{Kind: UpdateNotice, Notice: &Notice{Kind: NoticeMode, Text: locale.T("plan approved: the session left plan mode (mode normal) and carries the plan out")}})
		return true, "", nil
	case PermissionDeny:
		by.Outcome = PermissionDeny
		t.emit(Update{Kind: UpdatePermissionOutcome, Permission: &by})
		return false, "The user did not approve the plan; the session stays in plan mode. Ask what to change, or revise the plan and present it again.", nil
	case PermissionCancelled:
		by.Outcome = PermissionCancelled
		t.emit(Update{Kind: UpdatePermissionOutcome, Permission: &by})
		t.stop = StopCancelled
		return false, "", errEnded
	}
	return false, "", fmt.Errorf("the editor answered the plan approval with %q", outcome)
}
