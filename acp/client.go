package acp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/agent"
	"github.com/rx-bridge/rx-bridge/agent/tools"
	"github.com/rx-bridge/rx-bridge/editorui"
	"github.com/rx-bridge/rx-bridge/redact"
)

// clientEditor is the agent's editor over ACP: documents through
// fs/read_text_file and edits through fs/write_text_file when the client
// offers them (else the disk), permission prompts through
// session/request_permission.
type clientEditor struct{ s *server }

var _ agent.Editor = (*clientEditor)(nil)

// Document reads path through the client, so unsaved buffers are seen;
// a client that cannot read it leaves the tool to the disk.
func (e *clientEditor) Document(ctx context.Context, path string) (string, bool, error) {
	id := sessionOf(ctx)
	if id == "" || !e.s.clientCaps().Fs.ReadTextFile {
		return "", false, nil
	}
	res, err := e.s.client().ReadTextFile(ctx, acpsdk.ReadTextFileRequest{SessionId: acpsdk.SessionId(id), Path: path})
	if err != nil {
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		e.s.log.Debug("fs/read_text_file failed; reading the disk", "path", path, "err", redact.String(err.Error()))
		return "", false, nil
	}
	return res.Content, true, nil
}

// ApplyEdit writes the edited file through the client, so the edit lands
// in its buffer; a client error is the edit's failure (no disk fallback,
// as the reference). Without the capability the disk is written.
func (e *clientEditor) ApplyEdit(ctx context.Context, edit agent.FileEdit) error {
	id := sessionOf(ctx)
	if id == "" || !e.s.clientCaps().Fs.WriteTextFile {
		return tools.WriteToDisk(edit)
	}
	content := edit.Content
	if !edit.Whole {
		text, open, err := e.Document(ctx, edit.Path)
		if err != nil {
			return err
		}
		if !open {
			data, err := os.ReadFile(edit.Path)
			if err != nil {
				return err
			}
			text = string(data)
		}
		if content, err = tools.ApplyText(text, edit.Edits); err != nil {
			return err
		}
	}
	_, err := e.s.client().WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: acpsdk.SessionId(id), Path: edit.Path, Content: content})
	return err
}

// The permission options, their ids the kinds (as the reference's).
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optRejectOnce  = "reject_once"
)

// permissionOptions are the answers to a tool call's prompt: allow once,
// allow the tool for the rest of the session, reject.
func permissionOptions(tool string, readOnly bool) []acpsdk.PermissionOption {
	rule := tool
	if !readOnly && tool == "apply_edit" {
		rule = "Edit"
	}
	return []acpsdk.PermissionOption{
		{OptionId: optAllowOnce, Name: "Allow", Kind: acpsdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: "Allow " + rule + " for this session", Kind: acpsdk.PermissionOptionKindAllowAlways},
		{OptionId: optRejectOnce, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
	}
}

// RequestPermission asks the client about a tool call; a tool allowed
// for the session is not asked about again. allow_once allows,
// allow_always allows and grants the tool for the session, anything
// else (reject, a dismissed prompt, a failed request) denies; a prompt
// withdrawn because the turn is cancelled is PermissionCancelled.
func (e *clientEditor) RequestPermission(ctx context.Context, req agent.PermissionRequest) (agent.PermissionOutcome, error) {
	ss, ok := e.s.session(acpsdk.SessionId(req.SessionID))
	if !ok {
		return agent.PermissionDeny, nil
	}
	tc := req.ToolCall
	if ss.granted(tc.Name) {
		return agent.PermissionAllow, nil
	}
	kind, status := toolKind(tc.Kind), acpsdk.ToolCallStatusPending
	title := toolTitle(tc)
	call := acpsdk.ToolCallUpdate{ToolCallId: acpsdk.ToolCallId(tc.Key), Title: &title, Kind: &kind, Status: &status, RawInput: rawInput(tc.Arguments), Locations: locations(tc.Locations)}
	if d := editDiffs(tc); d != nil {
		call.Content = d
	}
	res, err := e.s.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(req.SessionID), ToolCall: call, Options: permissionOptions(tc.Name, req.ReadOnly)})
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
		ss.grant(tc.Name)
		return agent.PermissionAllow, nil
	}
	return agent.PermissionDeny, nil
}

// clientUI is the plugins' UI over ACP, in the session that has the
// focus (the one whose prompt or action runs). ACP has no widgets for
// them: a select, a confirm or an input is asked as a
// session/request_permission whose options are the answers (the
// reference's mapping); everything shown is a message chunk.
type clientUI struct{ s *server }

var _ editorui.Editor = (*clientUI)(nil)

func (u *clientUI) Supports(k editorui.Kind) bool {
	switch k {
	case editorui.KindSelect, editorui.KindConfirm, editorui.KindInput:
		return true
	}
	return false
}

// choice is one answer offered for a question.
type choice struct {
	name  string
	value json.RawMessage
}

// ask asks one field as a permission request: each choice an allow_once
// option "<key>:<n>", then "<key>:cancel". Any outcome but a choice
// cancels the prompt.
func (u *clientUI) ask(ctx context.Context, p editorui.Prompt, choices []choice) (editorui.Answer, error) {
	id := u.s.focused()
	if id == "" || len(p.Fields) != 1 {
		return editorui.Answer{Cancelled: true}, nil
	}
	f := p.Fields[0]
	title := orDefault(f.Label, orDefault(p.Title, "Question"))
	opts := make([]acpsdk.PermissionOption, 0, len(choices)+1)
	for i, c := range choices {
		opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(f.Key + ":" + strconv.Itoa(i+1)), Name: c.name, Kind: acpsdk.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(f.Key + ":cancel"), Name: "Cancel", Kind: acpsdk.PermissionOptionKindRejectOnce})
	kind, status := acpsdk.ToolKindOther, acpsdk.ToolCallStatusPending
	call := acpsdk.ToolCallUpdate{
		ToolCallId: acpsdk.ToolCallId("ask-" + p.Plugin + "-" + p.SurfaceID + "-" + f.Key),
		Title:      &title, Kind: &kind, Status: &status,
		RawInput: map[string]any{"plugin": p.Plugin, "question": title, "kind": string(f.Kind), "options": f.Options},
	}
	if p.Title != "" && p.Title != title {
		call.Content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(p.Title))}
	}
	res, err := u.s.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(id), ToolCall: call, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return editorui.Answer{}, ctx.Err()
		}
		return editorui.Answer{Cancelled: true}, nil
	}
	if res.Outcome.Selected == nil {
		return editorui.Answer{Cancelled: true}, nil
	}
	picked := string(res.Outcome.Selected.OptionId)
	n, err := strconv.Atoi(strings.TrimPrefix(picked, f.Key+":"))
	if !strings.HasPrefix(picked, f.Key+":") || err != nil || n < 1 || n > len(choices) {
		return editorui.Answer{Cancelled: true}, nil
	}
	return editorui.Answer{Values: map[string]json.RawMessage{f.Key: choices[n-1].value}}, nil
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func (u *clientUI) Select(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	if len(p.Fields) != 1 {
		return editorui.Answer{Cancelled: true}, nil
	}
	var cs []choice
	for _, o := range p.Fields[0].Options {
		cs = append(cs, choice{name: o, value: jsonString(o)})
	}
	return u.ask(ctx, p, cs)
}

func (u *clientUI) Confirm(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.ask(ctx, p, []choice{{"Yes", json.RawMessage("true")}, {"No", json.RawMessage("false")}})
}

// Input can offer only its default (a permission request has no text
// field); without one it can only be cancelled.
func (u *clientUI) Input(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	if len(p.Fields) != 1 {
		return editorui.Answer{Cancelled: true}, nil
	}
	var cs []choice
	var def string
	if d := p.Fields[0].Default; d != nil && json.Unmarshal(d, &def) == nil && def != "" {
		cs = append(cs, choice{name: "Use " + strconv.Quote(def), value: jsonString(def)})
	}
	return u.ask(ctx, p, cs)
}

var errUnsupported = errors.New("acp: not rendered natively")

func (u *clientUI) MultiSelect(context.Context, editorui.Prompt) (editorui.Answer, error) {
	return editorui.Answer{}, errUnsupported
}
func (u *clientUI) Form(context.Context, editorui.Prompt) (editorui.Answer, error) {
	return editorui.Answer{}, errUnsupported
}
func (u *clientUI) Notify(context.Context, editorui.Notification) error { return errUnsupported }
func (u *clientUI) Status(context.Context, editorui.Status) error       { return errUnsupported }
func (u *clientUI) Card(context.Context, editorui.Card) error           { return errUnsupported }
func (u *clientUI) ShowForm(context.Context, editorui.Form) error       { return errUnsupported }

// ShowMessage is a message chunk in the focused session ("[warning] …"
// for warnings and errors); with no session to show it in, it is logged.
func (u *clientUI) ShowMessage(_ context.Context, sev editorui.Severity, text string) error {
	id := u.s.focused()
	if id == "" {
		u.s.log.Info(text)
		return nil
	}
	prefix := "\n\n"
	if sev == editorui.SeverityWarn || sev == editorui.SeverityError {
		prefix += "[warning] "
	}
	u.s.send(id, acpsdk.UpdateAgentMessageText(prefix+text))
	return nil
}

// ShowMessageRequest offers the choices as a permission request.
func (u *clientUI) ShowMessageRequest(ctx context.Context, _ editorui.Severity, text string, choices []string) (int, bool, error) {
	cs := make([]choice, len(choices))
	for i, c := range choices {
		cs[i] = choice{name: c, value: jsonString(strconv.Itoa(i))}
	}
	a, err := u.ask(ctx, editorui.Prompt{Title: text, Fields: []editorui.Field{{Key: "choice", Label: text}}}, cs)
	if err != nil || a.Cancelled {
		return 0, false, err
	}
	var v string
	_ = json.Unmarshal(a.Values["choice"], &v)
	n, _ := strconv.Atoi(v)
	return n, true, nil
}

func (u *clientUI) LogMessage(_ context.Context, sev editorui.Severity, text string) error {
	if sev == editorui.SeverityError {
		u.s.log.Error(text)
	} else {
		u.s.log.Info(text)
	}
	return nil
}
