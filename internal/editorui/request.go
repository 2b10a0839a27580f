package editorui

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/rx-bridge/rx-bridge/extproto"
)

var cancelled = &extproto.UIRequestResult{Cancelled: true}

// Request serves one host/ui/request from plugin: the stale gate, the
// strict payload decode, redaction, then the questions — all at once on
// an editor with a native form, else one after another, each natively or
// through its text fallback. A stale or superseded request, a dismissed
// question and a question this editor cannot show all answer cancelled.
func (h *Hub) Request(ctx context.Context, plugin string, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
	switch h.judge(p.SessionID, p.Generation) {
	case stale:
		return cancelled, nil
	case upcoming:
		if !h.await(ctx, p.Generation) {
			return cancelled, nil
		}
	}
	form, err := extproto.DecodeRequestPayload(p.Kind, p.Payload)
	if err != nil {
		return nil, err
	}
	ctx, done, ok := h.open(ctx, p.Generation)
	if !ok {
		return cancelled, nil
	}
	defer done()
	pr := Prompt{
		Origin:  Origin{Plugin: plugin, SurfaceID: p.SurfaceID, SessionID: p.SessionID, Generation: p.Generation, Session: SessionFor(ctx)},
		Kind:    p.Kind,
		Title:   h.opts.Redact(form.Title),
		Message: h.opts.Redact(form.Message),
		Fields:  h.fields(form.Questions(p.Kind)),
	}
	ans, err := h.ask(ctx, pr)
	if err != nil {
		if ctx.Err() != nil {
			return cancelled, nil
		}
		return nil, err
	}
	if ans.Cancelled || len(ans.Values) == 0 {
		return cancelled, nil
	}
	return &extproto.UIRequestResult{Values: ans.Values}, nil
}

// ask puts a prompt's questions to the editor and returns the checked
// answers. Field by field, as Reasonix asks them: a dismissed optional
// field is left out and the answered ones are kept; a dismissed required
// field, or nothing answered at all, cancels the prompt.
func (h *Hub) ask(ctx context.Context, p Prompt) (Answer, error) {
	if len(p.Fields) > 1 && h.opts.Editor.Supports(KindForm) {
		a, err := h.opts.Editor.Form(ctx, p)
		if err != nil || a.Cancelled {
			return a, err
		}
		return checkAll(p.Fields, a.Values), nil
	}
	values := map[string]json.RawMessage{}
	for _, f := range p.Fields {
		one := p
		one.Fields = []Field{f}
		a, err := h.askOne(ctx, one)
		if err != nil {
			return a, err
		}
		if ctx.Err() != nil {
			return Answer{Cancelled: true}, nil
		}
		got := checkAll(one.Fields, a.Values)
		if a.Cancelled || got.Cancelled || len(got.Values) == 0 {
			if f.Required {
				return Answer{Cancelled: true}, nil
			}
			continue
		}
		maps.Copy(values, got.Values)
	}
	if len(values) == 0 {
		return Answer{Cancelled: true}, nil
	}
	return Answer{Values: values}, nil
}

// askOne asks a prompt of exactly one field.
func (h *Hub) askOne(ctx context.Context, p Prompt) (Answer, error) {
	ed := h.opts.Editor
	f := p.Fields[0]
	switch f.Kind {
	case extproto.FieldSelect:
		if ed.Supports(KindSelect) {
			return ed.Select(ctx, p)
		}
		if len(f.Options) > 0 && len(f.Options) <= MaxChoiceButtons {
			return h.choose(ctx, p, f.Options, func(i int) any { return f.Options[i] })
		}
	case extproto.FieldConfirm:
		if ed.Supports(KindConfirm) {
			return ed.Confirm(ctx, p)
		}
		return h.choose(ctx, p, []string{"Yes", "No"}, func(i int) any { return i == 0 })
	case extproto.FieldInput:
		if ed.Supports(KindInput) {
			return ed.Input(ctx, p)
		}
		// Free text cannot be typed into buttons, but a default can be
		// taken: the one button a plain editor can offer.
		var def string
		if json.Unmarshal(f.Default, &def) == nil && def != "" {
			return h.choose(ctx, p, []string{useDefault(def)}, func(int) any { return def })
		}
	case extproto.FieldMultiselect:
		if ed.Supports(KindMultiSelect) {
			return ed.MultiSelect(ctx, p)
		}
	}
	if err := ed.ShowMessage(ctx, SeverityWarn, cannotShow(p.Plugin, p.Title, p.Message, f.Label)); err != nil {
		h.warn("editorui: " + err.Error())
	}
	return Answer{Cancelled: true}, nil
}

// MaxChoiceButtons is the most options a select may have to be asked with
// window/showMessageRequest buttons.
const MaxChoiceButtons = 8

// choose asks through window/showMessageRequest and maps the chosen
// button to the field's value.
func (h *Hub) choose(ctx context.Context, p Prompt, choices []string, value func(int) any) (Answer, error) {
	f := p.Fields[0]
	i, ok, err := h.opts.Editor.ShowMessageRequest(ctx, SeverityInfo, question(p.Plugin, p.Title, p.Message, f.Label), choices)
	if err != nil || !ok || i < 0 || i >= len(choices) {
		return Answer{Cancelled: true}, err
	}
	raw, err := json.Marshal(value(i))
	if err != nil {
		return Answer{}, err
	}
	return Answer{Values: map[string]json.RawMessage{f.Key: raw}}, nil
}

// fields redacts the shown parts of each question: label, options and a
// string default. Keys are ids and stay as they are.
func (h *Hub) fields(qs []extproto.UIFormField) []Field {
	out := make([]Field, len(qs))
	for i, q := range qs {
		f := Field{Key: q.Key, Label: h.opts.Redact(q.Label), Kind: q.Kind, Required: q.Required, Default: h.redactDefault(q.Default)}
		for _, o := range q.Options {
			f.Options = append(f.Options, h.opts.Redact(o))
		}
		out[i] = f
	}
	return out
}

// redactDefault redacts a default that is a string or a string array;
// other JSON (true, 3) is kept.
func (h *Hub) redactDefault(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		out, _ := json.Marshal(h.opts.Redact(s))
		return out
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		for i := range list {
			list[i] = h.opts.Redact(list[i])
		}
		out, _ := json.Marshal(list)
		return out
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		switch v.(type) {
		case bool, float64, nil:
			return raw
		}
	}
	return nil // an object default is not shown
}

// Pick asks the user to choose one of options, natively where the
// editor has a select, else with window/showMessageRequest buttons; the
// question comes from the bridge itself (Origin.Plugin "rx-bridge").
// ok is false when the user dismissed it.
func (h *Hub) Pick(ctx context.Context, surfaceID, title string, options []string) (choice int, ok bool, err error) {
	ed := h.opts.Editor
	if !ed.Supports(KindSelect) {
		return ed.ShowMessageRequest(ctx, SeverityInfo, BridgeOrigin+": "+title, options)
	}
	p := Prompt{
		Origin: Origin{Plugin: BridgeOrigin, SurfaceID: surfaceID, SessionID: h.opts.SessionID, Generation: h.Generation(), Session: SessionFor(ctx)},
		Kind:   extproto.RequestSelect,
		Title:  title,
		Fields: []Field{{Key: "choice", Label: title, Kind: extproto.FieldSelect, Options: options, Required: true}},
	}
	a, err := ed.Select(ctx, p)
	if err != nil || a.Cancelled {
		return 0, false, err
	}
	var v string
	if json.Unmarshal(a.Values["choice"], &v) != nil {
		return 0, false, nil
	}
	for i, o := range options {
		if o == v {
			return i, true, nil
		}
	}
	return 0, false, nil
}

// BridgeOrigin is the Origin.Plugin of the questions the bridge asks
// itself (Hub.Pick).
const BridgeOrigin = "rx-bridge"
