package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// clientEditor is the agent's editor over ACP: documents through
// fs/read_text_file and edits through fs/write_text_file when the client
// offers them (else the disk), permission prompts through
// session/request_permission.
type clientEditor struct{ s *server }

var (
	_ agent.Editor   = (*clientEditor)(nil)
	_ agent.Restorer = (*clientEditor)(nil)
)

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

// RestoreFiles puts the files of an undone turn back as it applies
// edits: through fs/write_text_file when the client offers it, so the
// undo lands in its buffers, else on disk. ACP has no delete: a file the
// turn created is removed on disk, where a client's buffer of it may
// live on. Every file is tried; the error names each that failed.
func (e *clientEditor) RestoreFiles(ctx context.Context, _ int, files []agent.RestoreFile) error {
	id := sessionOf(ctx)
	viaClient := id != "" && e.s.clientCaps().Fs.WriteTextFile
	var errs []error
	for _, f := range files {
		if f.Created || !viaClient {
			if err := agent.RestoreOnDisk(f); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if _, err := e.s.client().WriteTextFile(ctx, acpsdk.WriteTextFileRequest{SessionId: acpsdk.SessionId(id), Path: f.Path, Content: f.Before}); err != nil {
			errs = append(errs, fmt.Errorf("fs/write_text_file %s: %w", f.Path, err))
		}
	}
	return errors.Join(errs...)
}

// clientUI is the plugins' UI over ACP, in the session the engine names
// (Origin.Session; exthost's attribution); session-less surfaces go to
// every open session, session-less questions to the most recently active
// one (server.showIn, server.askIn). Questions (host/ui/request)
// are an ACP elicitation (a form of one or every field) when the client
// declares elicitation.form, else the reference's mapping: a
// session/request_permission whose options are the answers. Surfaces are
// message chunks (the reference's text fallbacks), and for clients that
// negotiated it also the reference's _reasonix.io/extension_surface
// update (surface.go).
type clientUI struct{ s *server }

var _ editorui.Editor = (*clientUI)(nil)

// Supports: every kind; a form's questions are asked field by field
// without elicitation (Form), a published form is announced (ShowForm).
func (u *clientUI) Supports(editorui.Kind) bool { return true }

// choice is one answer offered for a question.
type choice struct {
	name  string
	value json.RawMessage
}

// Clients that render permission options by their kind alone (codecompanion
// shows every allow_once as "Accept") cannot tell answers apart that
// share a kind, so without elicitation no question offers two options of
// one kind: a confirm is Yes (allow_once) / No (reject_once); a question
// with one answer (a select of one, an input's default) is that answer
// (allow_once) / Cancel (reject_once); a select of several asks its
// answers one at a time, each named in the request's title ("Choose X" /
// "Next option"), and a multi-select asks each answer in turn
// ("Include X" / "Skip"). Dismissing any request (outcome cancelled)
// cancels the question.

// permit asks one permission request for field f of p (step is the
// request's place in a sequence, "" for a single one) and returns the
// option the user picked ("" when dismissed).
func (u *clientUI) permit(ctx context.Context, id string, p editorui.Prompt, title, step string, detail string, opts []acpsdk.PermissionOption) (string, error) {
	f := p.Fields[0]
	kind, status := acpsdk.ToolKindOther, acpsdk.ToolCallStatusPending
	callID := "ask-" + p.Plugin + "-" + p.SurfaceID + "-" + f.Key
	if step != "" {
		callID += "-" + step
	}
	call := acpsdk.ToolCallUpdate{
		ToolCallId: acpsdk.ToolCallId(callID),
		Title:      &title, Kind: &kind, Status: &status,
		RawInput: map[string]any{"plugin": p.Plugin, "question": orDefault(f.Label, orDefault(p.Title, "Question")), "kind": string(f.Kind), "options": f.Options},
	}
	var text []string
	if p.Title != "" && !strings.HasPrefix(title, p.Title) {
		text = append(text, p.Title)
	}
	if detail != "" {
		text = append(text, detail)
	}
	if len(text) > 0 {
		call.Content = []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(strings.Join(text, "\n\n")))}
	}
	res, err := u.s.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{SessionId: acpsdk.SessionId(id), ToolCall: call, Options: opts})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", nil
	}
	if res.Outcome.Selected == nil {
		return "", nil
	}
	return string(res.Outcome.Selected.OptionId), nil
}

// ask asks one field whose answers are choices (at most two with
// distinct kinds: see above): the first allow_once, then, for a confirm,
// the second reject_once, else Cancel.
func (u *clientUI) ask(ctx context.Context, p editorui.Prompt, choices []choice) (editorui.Answer, error) {
	id := u.s.askIn(p.Origin)
	if id == "" || len(p.Fields) != 1 || len(choices) == 0 {
		return editorui.Answer{Cancelled: true}, nil
	}
	f := p.Fields[0]
	title := orDefault(f.Label, orDefault(p.Title, "Question"))
	opts := []acpsdk.PermissionOption{{OptionId: acpsdk.PermissionOptionId(f.Key + ":1"), Name: choices[0].name, Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if len(choices) == 2 {
		opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(f.Key + ":2"), Name: choices[1].name, Kind: acpsdk.PermissionOptionKindRejectOnce})
	} else {
		opts = append(opts, acpsdk.PermissionOption{OptionId: acpsdk.PermissionOptionId(f.Key + ":cancel"), Name: "Cancel", Kind: acpsdk.PermissionOptionKindRejectOnce})
	}
	picked, err := u.permit(ctx, id, p, title, "", "", opts)
	if err != nil {
		return editorui.Answer{}, err
	}
	return pickedAnswer(f.Key, picked, choices), nil
}

// askEach asks a select or multi-select of several options one option at
// a time. A select ends at the first option chosen ("Next option" on the
// last one cancels); a multi-select asks every option and answers the
// ones included.
func (u *clientUI) askEach(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	id := u.s.askIn(p.Origin)
	if id == "" || len(p.Fields) != 1 {
		return editorui.Answer{Cancelled: true}, nil
	}
	f := p.Fields[0]
	question := orDefault(f.Label, orDefault(p.Title, "Question"))
	multi := f.Kind == extproto.FieldMultiselect
	var included []string
	for i, o := range f.Options {
		var list []string
		for j, other := range f.Options {
			mark := "  "
			if j == i {
				mark = "→ "
			}
			list = append(list, mark+other)
		}
		title := fmt.Sprintf("%s — %s? (%d of %d)", question, o, i+1, len(f.Options))
		yes, no := locale.T("Choose %s", o), locale.T("Next option")
		if multi {
			yes, no = locale.T("Include %s", o), locale.T("Skip %s", o)
		} else if i == len(f.Options)-1 {
			no = locale.T("None of these")
		}
		opts := []acpsdk.PermissionOption{
			{OptionId: acpsdk.PermissionOptionId(f.Key + ":yes"), Name: yes, Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: acpsdk.PermissionOptionId(f.Key + ":no"), Name: no, Kind: acpsdk.PermissionOptionKindRejectOnce},
		}
		picked, err := u.permit(ctx, id, p, title, strconv.Itoa(i+1), strings.Join(list, "\n"), opts)
		switch {
		case err != nil:
			return editorui.Answer{}, err
		case picked == "":
			return editorui.Answer{Cancelled: true}, nil
		case picked == f.Key+":yes" && !multi:
			return editorui.Answer{Values: map[string]json.RawMessage{f.Key: jsonString(o)}}, nil
		case picked == f.Key+":yes":
			included = append(included, o)
		}
	}
	if !multi {
		return editorui.Answer{Cancelled: true}, nil
	}
	b, _ := json.Marshal(append([]string{}, included...))
	return editorui.Answer{Values: map[string]json.RawMessage{f.Key: b}}, nil
}

// pickedAnswer maps the picked option id to the answer of field key: the
// value of the choice it names; anything else cancels.
func pickedAnswer(key, picked string, choices []choice) editorui.Answer {
	n, err := strconv.Atoi(strings.TrimPrefix(picked, key+":"))
	if !strings.HasPrefix(picked, key+":") || err != nil || n < 1 || n > len(choices) {
		return editorui.Answer{Cancelled: true}
	}
	return editorui.Answer{Values: map[string]json.RawMessage{key: choices[n-1].value}}
}

func jsonString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// Select, MultiSelect, Input and Confirm ask one field: through an
// elicitation when the client offers one, else as a permission request.
func (u *clientUI) Select(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.one(ctx, p)
}
func (u *clientUI) MultiSelect(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.one(ctx, p)
}
func (u *clientUI) Input(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.one(ctx, p)
}
func (u *clientUI) Confirm(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return u.one(ctx, p)
}

func (u *clientUI) one(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	if len(p.Fields) != 1 {
		return editorui.Answer{Cancelled: true}, nil
	}
	if u.s.elicits() {
		return u.elicit(ctx, p)
	}
	return u.askField(ctx, p)
}

// askField asks p's one field as permission requests (see above): Yes /
// No for a confirm, a select's or multi-select's options (one at a time
// when there are several), an input only its default — a permission
// request has no text field, so an input without one cannot be asked:
// the user is told which question this client cannot answer and the
// question is cancelled.
func (u *clientUI) askField(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	f := p.Fields[0]
	switch f.Kind {
	case extproto.FieldConfirm:
		return u.ask(ctx, p, []choice{{"Yes", json.RawMessage("true")}, {"No", json.RawMessage("false")}})
	case extproto.FieldSelect, extproto.FieldMultiselect:
		if len(f.Options) == 1 && f.Kind == extproto.FieldSelect {
			return u.ask(ctx, p, []choice{{f.Options[0], jsonString(f.Options[0])}})
		}
		if len(f.Options) > 0 {
			return u.askEach(ctx, p)
		}
	case extproto.FieldInput:
		var def string
		if d := f.Default; d != nil && json.Unmarshal(d, &def) == nil && def != "" {
			return u.ask(ctx, p, []choice{{locale.T("Use %q", def), jsonString(def)}})
		}
		question := orDefault(f.Label, orDefault(p.Title, f.Key))
		msg := locale.T("%s asked %q, which needs typed text; this client offers no elicitation form, so it cannot be answered here (the question was cancelled)", p.Plugin, question)
		if id := u.s.askIn(p.Origin); id != "" {
			u.s.send(id, acpsdk.UpdateAgentMessageText(chunkPrefix(editorui.SeverityWarn)+redact.String(msg)))
		}
	}
	return editorui.Answer{Cancelled: true}, nil
}

// Form asks every field of a request at once: one elicitation, or
// without one field after field as the hub would (a dismissed optional
// field is left out, a dismissed required one cancels the whole form).
func (u *clientUI) Form(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	if u.s.elicits() {
		return u.elicit(ctx, p)
	}
	values := map[string]json.RawMessage{}
	for _, f := range p.Fields {
		one := p
		one.Fields = []editorui.Field{f}
		a, err := u.askField(ctx, one)
		if err != nil || ctx.Err() != nil {
			return editorui.Answer{Cancelled: true}, err
		}
		if a.Cancelled {
			if f.Required {
				return editorui.Answer{Cancelled: true}, nil
			}
			continue
		}
		maps.Copy(values, a.Values)
	}
	return editorui.Answer{Values: values}, nil
}

// ShowMessage is a message chunk in the most recently active session ("[warning] …"
// for warnings and errors); with no session to show it in, it is logged.
func (u *clientUI) ShowMessage(_ context.Context, sev editorui.Severity, text string) error {
	id := u.s.focused()
	if id == "" {
		u.s.log.Info(text)
		return nil
	}
	u.s.send(id, acpsdk.UpdateAgentMessageText(chunkPrefix(sev)+text))
	return nil
}

// chunkPrefix starts a shown text on a paragraph of its own, "[warning] "
// for warnings and errors (the reference's severity prefix).
func chunkPrefix(sev editorui.Severity) string {
	if sev == editorui.SeverityWarn || sev == editorui.SeverityError {
		return "\n\n[warning] "
	}
	return "\n\n"
}

// ShowMessageRequest offers the choices as a select's permission
// requests (one at a time when there are several: see askField).
func (u *clientUI) ShowMessageRequest(ctx context.Context, _ editorui.Severity, text string, choices []string) (int, bool, error) {
	a, err := u.askField(ctx, editorui.Prompt{Title: text, Fields: []editorui.Field{{Key: "choice", Label: text, Kind: extproto.FieldSelect, Options: choices}}})
	if err != nil || a.Cancelled {
		return 0, false, err
	}
	var v string
	_ = json.Unmarshal(a.Values["choice"], &v)
	if n := slices.Index(choices, v); n >= 0 {
		return n, true, nil
	}
	return 0, false, nil
}

func (u *clientUI) LogMessage(_ context.Context, sev editorui.Severity, text string) error {
	if sev == editorui.SeverityError {
		u.s.log.Error(text)
	} else {
		u.s.log.Info(text)
	}
	return nil
}
