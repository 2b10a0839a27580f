package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The permission options, their ids the kinds (as the reference's).
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// permissionOptions are the answers to a tool call's prompt: allow once,
// the engine's allow-for-this-session grant (agent.PermissionRequest.
// Grant: "Allow `make` in the workspace root for this session", "Allow
// edits to notes.txt for this session") when it offers one, reject. The
// reference's Bash(<prefix>:*) and Edit (every edit) grants are never
// offered: the engine's are narrower (issue 26).
func permissionOptions(req agent.PermissionRequest) []acpsdk.PermissionOption {
	opts := []acpsdk.PermissionOption{{OptionId: optAllowOnce, Name: locale.T("Allow"), Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if req.Grant != "" {
		opts = append(opts, acpsdk.PermissionOption{OptionId: optAllowAlways, Name: req.Grant, Kind: acpsdk.PermissionOptionKindAllowAlways})
	}
	return append(opts, acpsdk.PermissionOption{OptionId: optRejectOnce, Name: locale.T("Reject"), Kind: acpsdk.PermissionOptionKindRejectOnce})
}

// permissionMeta is the reference's hidden _meta of a permission
// request: the tool, and for run_command the exact argv and absolute cwd
// (commandSchemaVersion 1) a client may match its own rules against,
// as the engine decoded them (agent.PermissionRequest.Command). It is
// given only when they are exactly what runs: run_command is one
// program in exec form (never a shell line, so every call is the
// reference's "single static command"), but arguments that do not
// decode or a cwd the tool would refuse (no Command), or words the
// redaction pass would change (a plugin's rewrite is shown redacted) get
// no argv.
func permissionMeta(req agent.PermissionRequest) map[string]any {
	m := map[string]any{"tool": req.ToolCall.Name}
	if c := req.Command; c != nil && unredacted(c.Argv) && redact.String(c.Dir) == c.Dir {
		m["commandSchemaVersion"] = 1
		m["argv"] = c.Argv
		m["cwd"] = c.Dir
	}
	return map[string]any{"reasonix.io": m}
}

func unredacted(words []string) bool {
	for _, w := range words {
		if redact.String(w) != w {
			return false
		}
	}
	return true
}

// RequestPermission asks the client about a tool call; the agent
// session keeps and checks the grants, this only maps the answer:
// allow_once allows, allow_always is agent.PermissionAllowSession (a
// deny when no grant was offered), anything else (reject, a dismissed
// prompt answered "cancelled", a failed request) denies; only a prompt
// withdrawn because the turn is cancelled (session/cancel) is
// PermissionCancelled.
func (e *clientEditor) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	if _, ok := e.s.session(acpsdk.SessionId(req.SessionID)); !ok {
		return agent.PermissionDeny, nil
	}
	tc := req.ToolCall
	kind, status := toolKind(tc.Kind), acpsdk.ToolCallStatusPending
	title := toolTitle(tc)
	call := acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(tc.Key), Title: &title, Kind: &kind, Status: &status, RawInput: rawInput(tc.Arguments), Locations: locations(tc.Locations),
		Meta: permissionMeta(req)}
	if d := editDiffs(tc); d != nil {
		call.Content = d
	}
	res, err := e.s.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(req.SessionID), ToolCall: call, Options: permissionOptions(req)})
	switch {
	case ctx.Err() != nil:
		return agent.PermissionCancelled, nil
	case err != nil:
		e.s.log.Warn("session/request_permission failed; the call is denied", "tool", tc.Name, "err", redact.String(err.Error()))
		return agent.PermissionDeny, nil
	case res.Outcome.Cancelled != nil:
		// A prompt the user dismissed (codecompanion's Cancel button)
		// declines the call, as in Reasonix; only session/cancel, seen
		// as ctx above, cancels the turn.
		return agent.PermissionDeny, nil
	case res.Outcome.Selected == nil:
		return agent.PermissionDeny, nil
	}
	switch res.Outcome.Selected.OptionId {
	case optAllowOnce:
		return agent.PermissionAllow, nil
	case optAllowAlways:
		if req.Grant == "" {
			return agent.PermissionDeny, nil
		}
		return agent.PermissionAllowSession, nil
	}
	return agent.PermissionDeny, nil
}
