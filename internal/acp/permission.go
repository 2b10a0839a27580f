package acp

import (
	"context"
	"encoding/json"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// The permission options, their ids the kinds (as the reference's).
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// toolRunCommand is the built-in tool the reference's Bash rules map to.
const toolRunCommand = "run_command"

// commandArgs are run_command's arguments, decoded strictly (as the tool
// decodes them) so what a grant or the _meta names is what would run.
type commandArgs struct {
	Command        []string `json:"command"`
	Cwd            string   `json:"cwd"`
	TimeoutSeconds int      `json:"timeoutSeconds"`
}

func decodeCommand(args string) (commandArgs, bool) {
	var a commandArgs
	dec := json.NewDecoder(strings.NewReader(args))
	dec.DisallowUnknownFields()
	if dec.Decode(&a) != nil || dec.More() || len(a.Command) == 0 || a.Command[0] == "" {
		return commandArgs{}, false
	}
	return a, true
}

// grant is what "allow for this session" allows: key is matched against
// later calls, label names it to the user. A run_command grant is that
// exact command in that directory (the reference's Bash=<literal>; its
// Bash(<prefix>:*) would allow more than one command, which session
// grants here never do); apply_edit's is Edit (every edit), any other
// tool's the tool. ok is false when no grant is offered: a run_command
// call whose arguments do not decode.
type grant struct{ key, label string }

func grantFor(req agent.PermissionRequest, ws string) (grant, bool) {
	tc := req.ToolCall
	switch {
	case tc.Name == toolRunCommand:
		a, ok := decodeCommand(argsOf(req))
		if !ok {
			return grant{}, false
		}
		dir, ok := commandDir(ws, a.Cwd)
		if !ok {
			return grant{}, false
		}
		key, _ := json.Marshal([]any{tc.Name, dir, a.Command})
		label := toolRunCommand + "=" + tools.ShellQuote(a.Command)
		if a.Cwd != "" && a.Cwd != "." {
			label += " in " + a.Cwd
		}
		return grant{key: string(key), label: redact.String(label)}, true
	case tc.Name == "apply_edit" && !req.ReadOnly:
		return grant{key: tc.Name, label: "Edit"}, true
	}
	return grant{key: tc.Name, label: tc.Name}, true
}

func argsOf(req agent.PermissionRequest) string {
	if req.Args != "" {
		return req.Args
	}
	return req.ToolCall.Arguments
}

// commandDir is where run_command would run a call whose cwd is cwd in
// workspace ws, as the tool resolves it (inside the workspace, symlinks
// followed); ok is false when the tool would refuse it.
func commandDir(ws, cwd string) (string, bool) {
	w, err := tools.NewWorkspace(ws)
	if err != nil {
		return "", false
	}
	dir, err := w.Resolve(cwd)
	return dir, err == nil
}

// permissionOptions are the answers to a tool call's prompt: allow once,
// allow for the rest of the session (when a grant is offered), reject.
func permissionOptions(g grant, offered bool) []acpsdk.PermissionOption {
	opts := []acpsdk.PermissionOption{{OptionId: optAllowOnce, Name: "Allow", Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if offered {
		opts = append(opts, acpsdk.PermissionOption{OptionId: optAllowAlways, Name: "Allow " + g.label + " for this session", Kind: acpsdk.PermissionOptionKindAllowAlways})
	}
	return append(opts, acpsdk.PermissionOption{OptionId: optRejectOnce, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce})
}

// permissionMeta is the reference's hidden _meta of a permission
// request: the tool, and for run_command the exact argv and absolute cwd
// (commandSchemaVersion 1) a client may match its own rules against. It
// is given only when they are exactly what runs: run_command is one
// program in exec form (never a shell line, so every call is the
// reference's "single static command"), but arguments that do not
// decode, a cwd the tool would refuse, or words the redaction pass would
// change (a plugin's rewrite is shown redacted) get no argv.
func permissionMeta(req agent.PermissionRequest, ws string) map[string]any {
	m := map[string]any{"tool": req.ToolCall.Name}
	if req.ToolCall.Name == toolRunCommand {
		if a, ok := decodeCommand(argsOf(req)); ok && unredacted(a.Command) {
			if dir, ok := commandDir(ws, a.Cwd); ok && redact.String(dir) == dir {
				m["commandSchemaVersion"] = 1
				m["argv"] = a.Command
				m["cwd"] = dir
			}
		}
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

// RequestPermission asks the client about a tool call; a call a grant of
// this session covers is not asked about again. allow_once allows,
// allow_always allows and keeps the grant its label names, anything else
// (reject, a dismissed prompt, a failed request) denies; a prompt
// withdrawn because the turn is cancelled is PermissionCancelled.
func (e *clientEditor) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	ss, ok := e.s.session(acpsdk.SessionId(req.SessionID))
	if !ok {
		return agent.PermissionDeny, nil
	}
	tc := req.ToolCall
	ws := ss.s.Workspace()
	g, offered := grantFor(req, ws)
	if offered && ss.granted(g.key) {
		return agent.PermissionAllow, nil
	}
	kind, status := toolKind(tc.Kind), acpsdk.ToolCallStatusPending
	title := toolTitle(tc)
	call := acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(tc.Key), Title: &title, Kind: &kind, Status: &status, RawInput: rawInput(tc.Arguments), Locations: locations(tc.Locations),
		Meta: permissionMeta(req, ws)}
	if d := editDiffs(tc); d != nil {
		call.Content = d
	}
	res, err := e.s.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(req.SessionID), ToolCall: call, Options: permissionOptions(g, offered)})
	switch {
	case ctx.Err() != nil:
		return agent.PermissionCancelled, nil
	case err != nil:
		e.s.log.Warn("session/request_permission failed; the call is denied", "tool", tc.Name, "err", redact.String(err.Error()))
		return agent.PermissionDeny, nil
	case res.Outcome.Cancelled != nil:
		return agent.PermissionCancelled, nil
	case res.Outcome.Selected == nil:
		return agent.PermissionDeny, nil
	}
	switch res.Outcome.Selected.OptionId {
	case optAllowOnce:
		return agent.PermissionAllow, nil
	case optAllowAlways:
		if !offered {
			return agent.PermissionDeny, nil
		}
		ss.grant(g.key)
		return agent.PermissionAllow, nil
	}
	return agent.PermissionDeny, nil
}
