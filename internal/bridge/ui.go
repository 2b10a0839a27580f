package bridge

import (
	"context"
	"encoding/json"
	"errors"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
)

// editorUI implements editorui.Editor over LSP: rx/ui/request and
// rx/ui/surface for what the editor renders natively, window/* messages
// for the fallbacks.
type editorUI struct{ s *Server }

var _ editorui.Editor = (*editorUI)(nil)

func (e *editorUI) Supports(k editorui.Kind) bool { return e.s.client.supports(k) }

func wireOrigin(o editorui.Origin) rxproto.UIOrigin {
	return rxproto.UIOrigin{Plugin: o.Plugin, SurfaceID: o.SurfaceID, SessionID: o.SessionID, Generation: o.Generation, AgentSessionID: o.Session}
}

func wireFields(fields []editorui.Field) []rxproto.UIField {
	out := make([]rxproto.UIField, len(fields))
	for i, f := range fields {
		out[i] = rxproto.UIField{Key: f.Key, Label: f.Label, Kind: rxproto.UIFieldKind(f.Kind), Options: f.Options, Default: f.Default, Required: f.Required}
	}
	return out
}

func (e *editorUI) ask(ctx context.Context, p editorui.Prompt) (editorui.Answer, error) {
	var a rxproto.UIAnswer
	req := rxproto.UIRequest{UIOrigin: wireOrigin(p.Origin), Kind: rxproto.UIFieldKind(p.Kind), Title: p.Title, Message: p.Message, Fields: wireFields(p.Fields)}
	err := e.s.call(ctx, rxproto.MethodUIRequest, req, &a)
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

func (e *editorUI) surface(o editorui.Origin, kind rxproto.UISurfaceKind, payload any) error {
	return e.s.conn.Notify(e.s.ctx, rxproto.MethodUISurface, rxproto.UISurface{UIOrigin: wireOrigin(o), Kind: kind, Payload: payload})
}

func (e *editorUI) Notify(_ context.Context, n editorui.Notification) error {
	return e.surface(n.Origin, rxproto.UISurfaceKindNotification, rxproto.NotificationPayload{Title: n.Title, Body: n.Body, Severity: rxproto.Severity(n.Severity)})
}

func (e *editorUI) Status(_ context.Context, st editorui.Status) error {
	return e.surface(st.Origin, rxproto.UISurfaceKindStatus, rxproto.StatusPayload{Label: st.Label, Detail: st.Detail, Severity: rxproto.Severity(st.Severity), Progress: st.Progress})
}

func (e *editorUI) Card(_ context.Context, c editorui.Card) error {
	p := rxproto.CardPayload{Title: c.Title, Markdown: c.Markdown, Text: c.Text, Progress: c.Progress}
	for _, f := range c.Fields {
		p.Fields = append(p.Fields, rxproto.KeyValue{Key: f.Key, Value: f.Value})
	}
	for _, a := range c.Actions {
		p.Actions = append(p.Actions, rxproto.CardAction{ActionID: a.ActionID, Label: a.Label})
	}
	return e.surface(c.Origin, rxproto.UISurfaceKindCard, p)
}

func (e *editorUI) ShowForm(_ context.Context, f editorui.Form) error {
	return e.surface(f.Origin, rxproto.UISurfaceKindForm, rxproto.FormPayload{Title: f.Title, Message: f.Message, Fields: wireFields(f.Fields)})
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

// uiSubmit delivers a native form's answer to its plugin; a form of an
// older generation is not accepted.
func (s *Server) uiSubmit(ctx context.Context, raw []byte) (any, error) {
	var p rxproto.UISubmitParams
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
	return rxproto.UISubmitResult{Accepted: ok}, nil
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
	res, err := g.Submit(exthost.OnBehalfOf(ctx, o.Session), s.session, o.Plugin, o.SurfaceID, values)
	if err != nil {
		return false, err
	}
	return res.Accepted, nil
}
