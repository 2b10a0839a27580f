package extproto

import (
	"encoding/json"
	"reflect"
)

// The structured UI documents that UIPublishParams.payload and
// UIRequestParams.payload carry. They are closed: no member can hold HTML,
// CSS, script or a link, and every member is decoded strictly. Progress
// values are pointers because 0 is a meaningful progress.

// SurfacePayload is the payload of one published surface kind.
type SurfacePayload interface {
	Kind() UISurfaceKind
	Validate() error
}

// UIStatusPayload is a status line.
type UIStatusPayload struct {
	Detail   string     `json:"detail,omitempty"`
	Label    string     `json:"label" rx:"nonempty"`
	Progress *float64   `json:"progress,omitempty"`
	Severity UISeverity `json:"severity,omitempty"`
}

// UICardPayload is an informational card; every member is optional.
// Markdown goes to the editor's own safe renderer.
type UICardPayload struct {
	Actions  []UIActionRef `json:"actions,omitempty"`
	Fields   []UIKeyValue  `json:"fields,omitempty"`
	Markdown string        `json:"markdown,omitempty"`
	Progress *float64      `json:"progress,omitempty"`
	Text     string        `json:"text,omitempty"`
	Title    string        `json:"title,omitempty"`
}

// UIKeyValue is one row of a card; Value is required but may be empty.
type UIKeyValue struct {
	Key   string `json:"key" rx:"nonempty"`
	Value string `json:"value"`
}

// UIActionRef is a button on a card that invokes a declared action.
type UIActionRef struct {
	ActionID string `json:"actionId" rx:"nonempty"`
	Label    string `json:"label" rx:"nonempty"`
}

// UIFormPayload is a form: a published form surface, or the question
// document of a host/ui/request. Fields is required, `[]` when empty.
type UIFormPayload struct {
	Fields  []UIFormField `json:"fields"`
	Message string        `json:"message,omitempty"`
	Title   string        `json:"title,omitempty"`
}

// UIFormField is one question of a form. Default is any JSON value.
type UIFormField struct {
	Default  json.RawMessage `json:"default,omitempty"`
	Key      string          `json:"key" rx:"nonempty"`
	Kind     UIFieldKind     `json:"kind"`
	Label    string          `json:"label,omitempty"`
	Options  []string        `json:"options,omitempty"`
	Required bool            `json:"required,omitempty"`
}

// UINotificationPayload is a transient notification.
type UINotificationPayload struct {
	Body     string     `json:"body,omitempty"`
	Severity UISeverity `json:"severity,omitempty"`
	Title    string     `json:"title" rx:"nonempty"`
}

// Kind implements SurfacePayload.
func (UIStatusPayload) Kind() UISurfaceKind { return SurfaceStatus }

// Kind implements SurfacePayload.
func (UICardPayload) Kind() UISurfaceKind { return SurfaceCard }

// Kind implements SurfacePayload.
func (UIFormPayload) Kind() UISurfaceKind { return SurfaceForm }

// Kind implements SurfacePayload.
func (UINotificationPayload) Kind() UISurfaceKind { return SurfaceNotification }

// MarshalJSON writes a nil Fields as `[]`: the member is a required array.
func (p UIFormPayload) MarshalJSON() ([]byte, error) {
	type plain UIFormPayload
	if p.Fields == nil {
		p.Fields = []UIFormField{}
	}
	return json.Marshal(plain(p))
}

var surfaceTypes = map[UISurfaceKind]reflect.Type{
	SurfaceCard:         reflect.TypeFor[UICardPayload](),
	SurfaceForm:         reflect.TypeFor[UIFormPayload](),
	SurfaceNotification: reflect.TypeFor[UINotificationPayload](),
	SurfaceStatus:       reflect.TypeFor[UIStatusPayload](),
}

// DecodeSurfacePayload strictly decodes raw as the payload of a surface of
// kind k and validates it. It returns a pointer to the kind's DTO, e.g.
// *UIStatusPayload. A failure is invalid_params with message
// "invalid <kind> surface payload: <pointer>: <detail>".
func DecodeSurfacePayload(k UISurfaceKind, raw json.RawMessage) (SurfacePayload, error) {
	t, ok := surfaceTypes[k]
	if !ok {
		return nil, Errorf(ReasonInvalidParams, "unknown surface kind %q", clip(string(k)))
	}
	v := reflect.New(t)
	if err := decodeRoot(shapeOf(t), raw, v.Elem()); err != nil {
		return nil, Errorf(ReasonInvalidParams, "invalid %s surface payload: %w", k, err)
	}
	return v.Interface().(SurfacePayload), nil
}

// DecodeRequestPayload strictly decodes raw as the form of a
// host/ui/request of kind k and validates it, including that the request
// can be asked (see UIFormPayload.ValidateRequest). A failure is
// invalid_params with message "invalid <kind> request payload: ...".
func DecodeRequestPayload(k UIRequestKind, raw json.RawMessage) (*UIFormPayload, error) {
	if !k.Valid() {
		return nil, Errorf(ReasonInvalidParams, "unknown request kind %q", clip(string(k)))
	}
	var form UIFormPayload
	err := Decode(raw, &form)
	if err == nil {
		err = form.ValidateRequest(k)
	}
	if err != nil {
		return nil, Errorf(ReasonInvalidParams, "invalid %s request payload: %w", k, err)
	}
	return &form, nil
}

// SingleQuestionKey is the field key of a request asked as one question:
// the key of a request without fields and of the SDK's single-field
// prompts.
const SingleQuestionKey = "value"

// Questions returns the questions a request of kind k asks: its fields,
// or, for a request without fields, one question keyed
// SingleQuestionKey, labelled with the message, of the request's kind.
func (p *UIFormPayload) Questions(k UIRequestKind) []UIFormField {
	if len(p.Fields) > 0 {
		return p.Fields
	}
	return []UIFormField{{Key: SingleQuestionKey, Label: p.Message, Kind: UIFieldKind(k)}}
}
