package editorui

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Kind is a UI kind an editor may render natively.
type Kind string

// The UI kinds of docs/EDITOR_PROTOCOL.md §1.1 (`experimental.rxBridge.ui`).
const (
	KindSelect       Kind = "select"
	KindMultiSelect  Kind = "multiselect"
	KindInput        Kind = "input"
	KindConfirm      Kind = "confirm"
	KindForm         Kind = "form"
	KindNotification Kind = "notification"
	KindStatus       Kind = "status"
	KindCard         Kind = "card"
)

// Kinds lists every UI kind.
var Kinds = []Kind{KindSelect, KindMultiSelect, KindInput, KindConfirm, KindForm, KindNotification, KindStatus, KindCard}

// Severity is how loud a message is.
type Severity string

// The severities; SeverityInfo is the default.
const (
	SeverityInfo  Severity = "info"
	SeverityWarn  Severity = "warn"
	SeverityError Severity = "error"
)

// Origin stamps everything the editor is shown with where it came from.
type Origin struct {
	Plugin    string `json:"plugin"`
	SurfaceID string `json:"surfaceId"`
	// SessionID is the runtime's session the sidecar stamped (the hub's
	// Options.SessionID).
	SessionID  string `json:"sessionId"`
	Generation int64  `json:"generation"`
	// Session is the agent session the traffic belongs to, as the engine
	// attributed it (ForSession): the session whose call into the plugin
	// was outstanding when it arrived. "" is session-less traffic: a
	// front end with several sessions shows such a surface in every open
	// session and asks such a question in its most recently active one.
	// Not on the wire: an editor with one UI surface may ignore it.
	Session string `json:"-"`
}

// Field is one question, its texts redacted.
type Field struct {
	Key      string               `json:"key"`
	Label    string               `json:"label,omitempty"`
	Kind     extproto.UIFieldKind `json:"kind"`
	Options  []string             `json:"options,omitempty"`
	Default  json.RawMessage      `json:"default,omitempty"`
	Required bool                 `json:"required,omitempty"`
}

// Prompt is what the editor asks: one field, or, for Editor.Form, all of
// a request's fields.
type Prompt struct {
	Origin
	Kind    extproto.UIRequestKind
	Title   string
	Message string
	Fields  []Field
}

// Answer is the user's answer to a prompt: values keyed by field key (a
// bool for confirm, a string for input and select, a string array for
// multiselect). Cancelled means the prompt was dismissed.
type Answer struct {
	Cancelled bool
	Values    map[string]json.RawMessage
}

// Status is a status item; one per (plugin, surface id).
type Status struct {
	Origin
	Label    string   `json:"label"`
	Detail   string   `json:"detail,omitempty"`
	Severity Severity `json:"severity,omitempty"`
	Progress *float64 `json:"progress,omitempty"`
}

// Notification is a message with a severity.
type Notification struct {
	Origin
	Title    string   `json:"title"`
	Body     string   `json:"body,omitempty"`
	Severity Severity `json:"severity,omitempty"`
}

// Card is a read-only view with buttons that run declared actions.
type Card struct {
	Origin
	Title    string       `json:"title,omitempty"`
	Markdown string       `json:"markdown,omitempty"`
	Text     string       `json:"text,omitempty"`
	Fields   []KeyValue   `json:"fields,omitempty"`
	Progress *float64     `json:"progress,omitempty"`
	Actions  []CardAction `json:"actions,omitempty"`
}

// KeyValue is one row of a card.
type KeyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// CardAction is a card button: Name is the action's `/<plugin>:<id>`.
type CardAction struct {
	ActionID string `json:"actionId"`
	Label    string `json:"label"`
	Name     string `json:"-"`
}

// Form is a published form; its answer comes back through the host's
// submit path.
type Form struct {
	Origin
	Title   string  `json:"title,omitempty"`
	Message string  `json:"message,omitempty"`
	Fields  []Field `json:"fields"`
}

// Editor is what the hub needs from an editor. The first group renders a
// kind natively and is called only for kinds Supports reports; the plain
// message methods are the fallbacks every editor has (LSP window/*).
// Methods that ask block until the user answers or ctx ends; a dismissed
// prompt is an Answer with Cancelled set, not an error.
type Editor interface {
	// Supports reports whether the editor renders k natively.
	Supports(k Kind) bool

	Select(ctx context.Context, p Prompt) (Answer, error)
	MultiSelect(ctx context.Context, p Prompt) (Answer, error)
	Input(ctx context.Context, p Prompt) (Answer, error)
	Confirm(ctx context.Context, p Prompt) (Answer, error)
	// Form asks every field of p at once.
	Form(ctx context.Context, p Prompt) (Answer, error)
	Notify(ctx context.Context, n Notification) error
	Status(ctx context.Context, s Status) error
	Card(ctx context.Context, c Card) error
	ShowForm(ctx context.Context, f Form) error

	// ShowMessage shows text (window/showMessage).
	ShowMessage(ctx context.Context, sev Severity, text string) error
	// ShowMessageRequest offers choices (window/showMessageRequest) and
	// returns the index chosen; ok is false when dismissed.
	ShowMessageRequest(ctx context.Context, sev Severity, text string, choices []string) (choice int, ok bool, err error)
	// LogMessage writes text to the editor's log (window/logMessage).
	LogMessage(ctx context.Context, sev Severity, text string) error
}
