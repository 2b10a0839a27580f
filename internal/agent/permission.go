package agent

import (
	"context"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// permit decides whether a tool call may run: plan mode refuses what is
// not read-only without asking anyone; then the host's verdict
// from the approval mode (asking the editor when the mode says so), then
// permission.decision's chain and its slot owner, whose verdict is final.
// An extension allow over a host deny is audited by exthost and shown as
// an audit notice. It returns the text the model gets when the answer is
// no. args are the call's arguments as the tool gets them. review
// reports that the user is asked by reviewing the call's edit in the
// editor instead (EditReviewer).
func (t *turn) permit(ctx context.Context, tc *ToolCall, args string, tool tools.Tool) (allowed, review bool, refusal string, err error) {
	if _, ok := tool.(planTool); ok {
		allowed, refusal, err := t.approvePlan(ctx, tc, args)
		return allowed, false, refusal, err
	}
	if refusal := t.s.planRefusal(tc.Name, tool); refusal != "" {
		return false, false, refusal, nil
	}
	host, by, review, err := t.hostVerdict(ctx, tc, args, tool)
	if err != nil {
		return false, false, "", err
	}
	by.ToolCallID, by.ToolCallKey, by.Tool = tc.ID, tc.Key, tc.Name
	out, err := t.hook(ctx, &extproto.PermissionDecisionPayload{Name: tc.Name, Arguments: args, ReadOnly: tool.ReadOnly(), HostDecision: host})
	if err != nil {
		return false, false, "", err
	}
	verdict, asked, ruled := out.Verdict, !review && (by.DecidedBy == DecidedByUser || by.DecidedBy == DecidedByHook), false
	if plugin := verdictBy(out); plugin != "" {
		by.DecidedBy, by.Plugin, by.Mode, ruled = DecidedByExtension, plugin, "", true
		review = false
	}
	by.Outcome = PermissionOutcome(verdict)
	if asked || ruled || verdict != extproto.HostAllow {
		t.emit(Update{Kind: UpdatePermissionOutcome, Permission: &by})
	}
	if verdict != extproto.HostAllow {
		return false, false, fmt.Sprintf("permission denied by %s; the call did not run", by.By()), nil
	}
	return true, review, "", nil
}

// hostVerdict is the host's own verdict. The approval table (Decide)
// allows the call by the session's mode and the tool's class, or asks:
// then a grant the user gave for the rest of the session (grantFor)
// that covers the call allows it, else the PermissionRequest hooks may
// decide, else the editor is asked, offered the call's grant. A prompt
// the editor withdraws (PermissionCancelled) ends the turn as
// cancelled. The Permission says who decided. An edit-only tool's call
// in an editor that reviews edits (EditReviewer) is not asked: the host
// allows it with review set, and the user answers by reviewing the edit.
func (t *turn) hostVerdict(ctx context.Context, tc *ToolCall, args string, tool tools.Tool) (_ extproto.HostDecision, _ Permission, review bool, _ error) {
	mode, class := t.s.Approval(), classify(tool)
	if Decide(mode, class) == Allow {
		return extproto.HostAllow, Permission{DecidedBy: DecidedByHost, Mode: string(mode)}, false, nil
	}
	offer, cmd, offered := t.s.grantFor(tc.Name, class, args)
	if offered && t.s.granted(offer.key) {
		return extproto.HostAllow, Permission{DecidedBy: DecidedByUser}, false, nil
	}
	if v, decided := t.permissionHooks(ctx, tc, args); decided {
		return v, Permission{DecidedBy: DecidedByHook}, false, nil
	}
	if r, ok := t.s.a.opts.Editor.(EditReviewer); ok && tools.EditsOnly(tool) && r.ReviewsEdits() {
		return extproto.HostAllow, Permission{DecidedBy: DecidedByUser}, true, nil
	}
	t.emit(Update{Kind: UpdatePermissionRequest, Permission: &Permission{ToolCallID: tc.ID, ToolCallKey: tc.Key, Tool: tc.Name}})
	t.notifyPermissionPrompt(ctx, tc)
	t.s.j.checkpoint()
	req := PermissionRequest{SessionID: t.s.id, ToolCall: *tc, Args: args, ReadOnly: tool.ReadOnly(), Command: cmd}
	if offered {
		req.Grant = offer.label
	}
	outcome, err := t.s.a.opts.Editor.RequestPermission(ctx, req)
	if err != nil {
		return "", Permission{}, false, t.fail(ctx, fmt.Errorf("asking the editor for permission to run %s: %w", tc.Name, err))
	}
	user := Permission{DecidedBy: DecidedByUser}
	switch outcome {
	case PermissionAllow:
		return extproto.HostAllow, user, false, nil
	case PermissionAllowSession:
		if offered {
			t.s.grant(offer.key)
		}
		return extproto.HostAllow, user, false, nil
	case PermissionDeny:
		return extproto.HostDeny, user, false, nil
	case PermissionCancelled:
		t.emit(Update{Kind: UpdatePermissionOutcome, Permission: &Permission{ToolCallID: tc.ID, ToolCallKey: tc.Key, Tool: tc.Name, Outcome: PermissionCancelled, DecidedBy: DecidedByUser}})
		t.stop = StopCancelled
		return "", Permission{}, false, errEnded
	}
	return "", Permission{}, false, fmt.Errorf("the editor answered the permission prompt for %s with %q", tc.Name, outcome)
}
