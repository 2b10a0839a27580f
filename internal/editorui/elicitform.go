package editorui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// ElicitationForm is a requested schema an MCP server sent with
// elicitation/create (form mode), as the fields an editor asks: a string
// is an input, a string with enum or oneOf choices a select, a boolean a
// confirm, a number or integer an input whose answer must parse as one,
// an array of enum or anyOf strings a multiselect. Fields come in the
// schema's property order; a select shows the choices' titles (oneOf
// titles, legacy enumNames) and answers their values.
type ElicitationForm struct {
	Fields []Field
	props  []elicitProp
}

type elicitProp struct {
	typ string // string, number, integer, boolean, array
	// values are the choices' values, in Field.Options order.
	values []string
}

// maxElicitFields bounds how many properties a requested schema may have.
const maxElicitFields = 64

// ParseElicitation maps a requested schema to the form the editor asks.
// A schema that is not an object of flat properties of those types is an
// error: the client declines it without asking.
func ParseElicitation(schema json.RawMessage) (*ElicitationForm, error) {
	var top struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return nil, fmt.Errorf("requested schema: %w", err)
	}
	if top.Type != "object" {
		return nil, errors.New("requested schema: not an object")
	}
	keys, raws, err := orderedObject(top.Properties)
	if err != nil {
		return nil, fmt.Errorf("requested schema properties: %w", err)
	}
	if len(keys) == 0 || len(keys) > maxElicitFields {
		return nil, fmt.Errorf("requested schema: %d properties", len(keys))
	}
	required := map[string]bool{}
	for _, k := range top.Required {
		required[k] = true
	}
	form := &ElicitationForm{}
	for i, key := range keys {
		f, p, err := elicitField(key, raws[i])
		if err != nil {
			return nil, fmt.Errorf("requested schema property %q: %w", key, err)
		}
		f.Required = required[key]
		form.Fields = append(form.Fields, f)
		form.props = append(form.props, p)
	}
	return form, nil
}

type choice struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func elicitField(key string, raw json.RawMessage) (Field, elicitProp, error) {
	var s struct {
		Type        string          `json:"type"`
		Title       string          `json:"title"`
		Description string          `json:"description"`
		Default     json.RawMessage `json:"default"`
		Enum        []string        `json:"enum"`
		EnumNames   []string        `json:"enumNames"`
		OneOf       []choice        `json:"oneOf"`
		Items       *struct {
			Type  string   `json:"type"`
			Enum  []string `json:"enum"`
			AnyOf []choice `json:"anyOf"`
		} `json:"items"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return Field{}, elicitProp{}, err
	}
	label := s.Title
	if strings.TrimSpace(label) == "" {
		label = key
	}
	if d := strings.TrimSpace(s.Description); d != "" {
		label += " — " + d
	}
	f := Field{Key: key, Label: label}
	p := elicitProp{typ: s.Type}
	choices := func(enum, names []string, oneOf []choice) {
		for _, c := range oneOf {
			p.values = append(p.values, c.Const)
			f.Options = append(f.Options, first(c.Title, c.Const))
		}
		for i, v := range enum {
			p.values = append(p.values, v)
			if i < len(names) && names[i] != "" {
				f.Options = append(f.Options, names[i])
			} else {
				f.Options = append(f.Options, v)
			}
		}
	}
	// optionOf is the option shown for a value.
	optionOf := func(v string) (string, bool) {
		for i, x := range p.values {
			if x == v {
				return f.Options[i], true
			}
		}
		return "", false
	}
	switch s.Type {
	case "string":
		choices(s.Enum, s.EnumNames, s.OneOf)
		var def string
		hasDef := len(s.Default) > 0 && json.Unmarshal(s.Default, &def) == nil
		if len(p.values) > 0 {
			f.Kind = extproto.FieldSelect
			if o, ok := optionOf(def); hasDef && ok {
				f.Default = jsonOf(o)
			}
		} else {
			f.Kind = extproto.FieldInput
			if hasDef {
				f.Default = jsonOf(def)
			}
		}
	case "number", "integer":
		f.Kind = extproto.FieldInput
		var def float64
		if len(s.Default) > 0 && json.Unmarshal(s.Default, &def) == nil {
			f.Default = jsonOf(strconv.FormatFloat(def, 'f', -1, 64))
		}
	case "boolean":
		f.Kind = extproto.FieldConfirm
		var def bool
		if len(s.Default) > 0 && json.Unmarshal(s.Default, &def) == nil {
			f.Default = jsonOf(def)
		}
	case "array":
		if s.Items == nil {
			return Field{}, elicitProp{}, errors.New("an array without items")
		}
		choices(s.Items.Enum, nil, s.Items.AnyOf)
		if len(p.values) == 0 {
			return Field{}, elicitProp{}, errors.New("an array without choices")
		}
		f.Kind = extproto.FieldMultiselect
		var def []string
		if len(s.Default) > 0 && json.Unmarshal(s.Default, &def) == nil {
			var opts []string
			for _, v := range def {
				if o, ok := optionOf(v); ok {
					opts = append(opts, o)
				}
			}
			if opts != nil {
				f.Default = jsonOf(opts)
			}
		}
	default:
		return Field{}, elicitProp{}, fmt.Errorf("type %q", s.Type)
	}
	return f, p, nil
}

// ErrInvalidAnswer is an answer that does not fit its field (a number
// field answered with words).
var ErrInvalidAnswer = errors.New("editorui: the answer does not fit the requested schema")

// Content is an accepted answer as the elicitation result's content: the
// values by property name, a select's option mapped back to its value,
// a number parsed. An unanswered optional field is left out.
func (f *ElicitationForm) Content(values map[string]json.RawMessage) (map[string]any, error) {
	out := map[string]any{}
	for i, fd := range f.Fields {
		raw, ok := values[fd.Key]
		if !ok {
			if fd.Required {
				return nil, fmt.Errorf("%w: %s is required", ErrInvalidAnswer, fd.Key)
			}
			continue
		}
		p := f.props[i]
		valueOf := func(option string) (string, bool) {
			for j, o := range fd.Options {
				if o == option {
					return p.values[j], true
				}
			}
			return "", false
		}
		switch p.typ {
		case "boolean":
			var b bool
			if json.Unmarshal(raw, &b) != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
			}
			out[fd.Key] = b
		case "number", "integer":
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
			}
			s = strings.TrimSpace(s)
			if p.typ == "integer" {
				n, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					return nil, fmt.Errorf("%w: %s wants a whole number", ErrInvalidAnswer, fd.Key)
				}
				out[fd.Key] = n
				continue
			}
			n, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: %s wants a number", ErrInvalidAnswer, fd.Key)
			}
			out[fd.Key] = n
		case "array":
			var opts []string
			if json.Unmarshal(raw, &opts) != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
			}
			vals := []string{}
			for _, o := range opts {
				v, ok := valueOf(o)
				if !ok {
					return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
				}
				vals = append(vals, v)
			}
			out[fd.Key] = vals
		default:
			var s string
			if json.Unmarshal(raw, &s) != nil {
				return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
			}
			if len(p.values) > 0 {
				v, ok := valueOf(s)
				if !ok {
					return nil, fmt.Errorf("%w: %s", ErrInvalidAnswer, fd.Key)
				}
				s = v
			}
			out[fd.Key] = s
		}
	}
	return out, nil
}

// orderedObject splits a JSON object into its keys and values, in order.
func orderedObject(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, errors.New("not an object")
	}
	var keys []string
	var vals []json.RawMessage
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if seen[k] {
			return nil, nil, fmt.Errorf("property %q twice", k)
		}
		seen[k] = true
		keys, vals = append(keys, k), append(vals, v)
	}
	return keys, vals, nil
}

// Ask puts a question that does not come from a plugin (an MCP server's
// elicitation; origin names who asks) to the editor the way plugin
// questions go: all fields at once on an editor with a native form, else
// one after another, natively or through the text fallbacks. Texts are
// redacted here. The prompt is cancelled when a newer generation is
// bound or the hub closes; a dismissed prompt is Answer{Cancelled: true}.
func (h *Hub) Ask(ctx context.Context, origin, surfaceID, title, message string, fields []Field) (Answer, error) {
	gen := h.Generation()
	ctx, done, ok := h.open(ctx, gen)
	if !ok {
		return Answer{Cancelled: true}, nil
	}
	defer done()
	var qs []extproto.UIFormField
	for _, f := range fields {
		qs = append(qs, extproto.UIFormField{Key: f.Key, Label: f.Label, Kind: f.Kind, Options: f.Options, Default: f.Default, Required: f.Required})
	}
	p := Prompt{
		Origin:  Origin{Plugin: origin, SurfaceID: surfaceID, SessionID: h.opts.SessionID, Generation: gen, Session: SessionFor(ctx)},
		Kind:    extproto.RequestInput,
		Title:   h.opts.Redact(title),
		Message: h.opts.Redact(message),
		Fields:  h.fields(qs),
	}
	a, err := h.ask(ctx, p)
	if err != nil && ctx.Err() != nil {
		return Answer{Cancelled: true}, nil
	}
	return a, err
}

// ShowStatus shows a status item that does not come from a plugin (an
// MCP server's progress; st.Plugin names who reports) the way plugin
// status surfaces go: natively, else in the editor's log. One item per
// (st.Plugin, st.SurfaceID) is kept and updated in place. Texts are
// redacted here.
func (h *Hub) ShowStatus(ctx context.Context, st Status) {
	st.SessionID, st.Generation, st.Session = h.opts.SessionID, h.Generation(), SessionFor(ctx)
	st.Label, st.Detail = h.opts.Redact(st.Label), h.opts.Redact(st.Detail)
	h.show(ctx, st.Plugin, st)
}
