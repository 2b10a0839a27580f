package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/editorui"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// editorUI implements editorui.Editor over LSP: rx/ui/request and
// rx/ui/surface for what the editor renders natively, window/* messages
// for the fallbacks.
type editorUI struct{ s *Server }

var _ editorui.Editor = (*editorUI)(nil)

func (e *editorUI) Supports(k editorui.Kind) bool { return e.s.client.supports(k) }

// uiRequest is the params of rx/ui/request (EDITOR_PROTOCOL.md §3.1).
type uiRequest struct {
	editorui.Origin
	Kind    extproto.UIRequestKind `json:"kind"`
	Title   string                 `json:"title,omitempty"`
	Message string                 `json:"message,omitempty"`
	Fields  []editorui.Field       `json:"fields"`
}

// uiAnswer is the result of rx/ui/request.
type uiAnswer struct {
	Cancelled bool                       `json:"cancelled"`
	Values    map[string]json.RawMessage `json:"values,omitempty"`
}

func (e *editorUI) ask(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	var a uiAnswer
	err := e.s.call(ctx, "rx/ui/request", uiRequest{Origin: p.Origin, Kind: p.Kind, Title: p.Title, Message: p.Message, Fields: p.Fields}, &a)
	if err != nil {
		return editorui.Answer{}, err
	}
	return editorui.Answer{Cancelled: a.Cancelled, Values: a.Values}, nil
}

// askField sends one question with its own kind, so a client renders it
// as that widget.
func (e *editorUI) askField(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	if len(p.Fields) == 1 {
		p.Kind = extproto.UIRequestKind(p.Fields[0].Kind)
	}
	return e.ask(ctx, p)
}

func (e *editorUI) Select(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return e.askField(ctx, p)
}
func (e *editorUI) MultiSelect(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return e.askField(ctx, p)
}
func (e *editorUI) Input(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return e.askField(ctx, p)
}
func (e *editorUI) Confirm(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return e.askField(ctx, p)
}
func (e *editorUI) Form(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	return e.ask(ctx, p)
}

// uiSurface is the params of rx/ui/surface (EDITOR_PROTOCOL.md §3.2).
type uiSurface struct {
	editorui.Origin
	Kind    extproto.UISurfaceKind `json:"kind"`
	Payload any                    `json:"payload"`
}

func (e *editorUI) surface(o editorui.Origin, kind extproto.UISurfaceKind, payload any) error {
	return e.s.conn.Notify(e.s.ctx, "rx/ui/surface", uiSurface{Origin: o, Kind: kind, Payload: payload})
}

func (e *editorUI) Notify(_ context.Context, n editorui.Notification) error {
	return e.surface(n.Origin, extproto.SurfaceNotification, struct {
		Title    string            `json:"title"`
		Body     string            `json:"body,omitempty"`
		Severity editorui.Severity `json:"severity,omitempty"`
	}{n.Title, n.Body, n.Severity})
}

func (e *editorUI) Status(_ context.Context, st editorui.Status) error {
	return e.surface(st.Origin, extproto.SurfaceStatus, struct {
		Label    string            `json:"label"`
		Detail   string            `json:"detail,omitempty"`
		Severity editorui.Severity `json:"severity,omitempty"`
		Progress *float64          `json:"progress,omitempty"`
	}{st.Label, st.Detail, st.Severity, st.Progress})
}

func (e *editorUI) Card(_ context.Context, c editorui.Card) error {
	return e.surface(c.Origin, extproto.SurfaceCard, struct {
		Title    string                `json:"title,omitempty"`
		Markdown string                `json:"markdown,omitempty"`
		Text     string                `json:"text,omitempty"`
		Fields   []editorui.KeyValue   `json:"fields,omitempty"`
		Progress *float64              `json:"progress,omitempty"`
		Actions  []editorui.CardAction `json:"actions,omitempty"`
	}{c.Title, c.Markdown, c.Text, c.Fields, c.Progress, c.Actions})
}

func (e *editorUI) ShowForm(_ context.Context, f editorui.Form) error {
	return e.surface(f.Origin, extproto.SurfaceForm, struct {
		Title   string           `json:"title,omitempty"`
		Message string           `json:"message,omitempty"`
		Fields  []editorui.Field `json:"fields"`
	}{f.Title, f.Message, f.Fields})
}

func messageType(sev editorui.Severity) protocol.MessageType {
	switch sev {
	case editorui.SeverityError:
		return protocol.MessageTypeError
	case editorui.SeverityWarn:
		return protocol.MessageTypeWarning
	}
	return protocol.MessageTypeInfo
}

func (e *editorUI) ShowMessage(_ context.Context, sev editorui.Severity, text string) error {
	return e.s.conn.Notify(e.s.ctx, "window/showMessage", &protocol.ShowMessageParams{Type: messageType(sev), Message: text})
}

func (e *editorUI) ShowMessageRequest(ctx context.Context, sev editorui.Severity, text string, choices []string) (int, bool, error) {
	return e.s.chooseMessage(ctx, messageType(sev), text, choices)
}

func (e *editorUI) LogMessage(_ context.Context, sev editorui.Severity, text string) error {
	t := protocol.MessageTypeLog
	if sev == editorui.SeverityError {
		t = protocol.MessageTypeError
	}
	return e.s.conn.Notify(e.s.ctx, "window/logMessage", &protocol.LogMessageParams{Type: t, Message: text})
}

// chooseMessage asks window/showMessageRequest; ok is false when the
// editor dismissed it (a null result).
func (s *Server) chooseMessage(ctx context.Context, t protocol.MessageType, text string, choices []string) (int, bool, error) {
	actions := make([]protocol.MessageActionItem, len(choices))
	for i, c := range choices {
		actions[i] = protocol.MessageActionItem{Title: c}
	}
	var picked *protocol.MessageActionItem
	if err := s.call(ctx, "window/showMessageRequest", &protocol.ShowMessageRequestParams{Type: t, Message: text, Actions: actions}, &picked); err != nil {
		return 0, false, err
	}
	if picked == nil {
		return 0, false, nil
	}
	for i, c := range choices {
		if c == picked.Title {
			return i, true, nil
		}
	}
	return 0, false, nil
}

// uiSubmitParams is rx/ui/submit (EDITOR_PROTOCOL.md §3.3).
type uiSubmitParams struct {
	Plugin     string                     `json:"plugin"`
	SurfaceID  string                     `json:"surfaceId"`
	Generation int64                      `json:"generation"`
	Values     map[string]json.RawMessage `json:"values"`
}

// uiSubmit delivers a native form's answer to its plugin; a form of an
// older generation is not accepted.
func (s *Server) uiSubmit(ctx context.Context, raw []byte) (any, error) {
	var p uiSubmitParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Plugin == "" || p.SurfaceID == "" {
		return nil, invalidParams("rx/ui/submit needs plugin and surfaceId")
	}
	ok, err := s.submit(ctx, editorui.Origin{Plugin: p.Plugin, SurfaceID: p.SurfaceID, SessionID: s.session, Generation: p.Generation}, p.Values)
	if err != nil {
		return nil, err
	}
	return extproto.UISubmitResult{Accepted: ok}, nil
}

// submitForm is the hub's Submit for forms it asked field by field.
func (s *Server) submitForm(ctx context.Context, o editorui.Origin, values map[string]json.RawMessage) error {
	ok, err := s.submit(ctx, o, values)
	if err == nil && !ok {
		err = errors.New("the submission was not accepted")
	}
	return err
}

// submit sends extension/ui/submit; false when the generation is stale or
// the plugin refused the values.
func (s *Server) submit(ctx context.Context, o editorui.Origin, values map[string]json.RawMessage) (bool, error) {
	snap, release := s.rt.set.Acquire()
	defer release()
	g := snap.Gen
	if g.ID != o.Generation || g.ID != s.hub.Generation() {
		return false, nil
	}
	if values == nil {
		values = map[string]json.RawMessage{}
	}
	res, err := g.Submit(ctx, s.session, o.Plugin, o.SurfaceID, values)
	if err != nil {
		return false, err
	}
	return res.Accepted, nil
}
