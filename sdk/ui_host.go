package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// ErrDismissed is returned when the user dismissed a prompt (the host
// answered cancelled:true). A prompt from a superseded generation is
// answered the same way.
var ErrDismissed = errors.New("sdk: the user dismissed the prompt")

// Publish shows or updates (same surfaceID) a surface: a
// extproto.UIStatusPayload, UICardPayload, UIFormPayload or
// UINotificationPayload. The payload is validated before it goes out. It
// reports false when the host dropped it as stale (an old generation or
// another session).
func (h *Host) Publish(ctx context.Context, surfaceID string, payload extproto.SurfacePayload) (bool, error) {
	if strings.TrimSpace(surfaceID) == "" {
		return false, extproto.NewError(extproto.ReasonInvalidParams, "sdk: publish needs a surface id")
	}
	if payload == nil {
		return false, extproto.NewError(extproto.ReasonInvalidParams, "sdk: publish needs a payload")
	}
	if err := payload.Validate(); err != nil {
		return false, extproto.Errorf(extproto.ReasonInvalidParams, "sdk: invalid %s surface payload: %w", payload.Kind(), err)
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return false, fmt.Errorf("sdk: publish %s: %w", surfaceID, err)
	}
	sess := h.Session()
	res, err := call[extproto.UIPublishResult](ctx, h, extproto.MethodUIPublish, extproto.UIPublishParams{
		SurfaceID:  surfaceID,
		SessionID:  sess.SessionID,
		Generation: sess.Generation,
		Kind:       payload.Kind(),
		Payload:    raw,
	})
	if err != nil {
		return false, err
	}
	return res.Accepted, nil
}

// Request asks the user the questions of form and blocks until they
// answer. Values are keyed by field key: a bool for confirm, a string for
// input and select, a string array for multiselect (decode them with
// encoding/json). A dismissed prompt is ErrDismissed. An empty surfaceID
// gets a fresh one ("<kind>-<n>").
func (h *Host) Request(ctx context.Context, surfaceID string, kind extproto.UIRequestKind, form extproto.UIFormPayload) (map[string]json.RawMessage, error) {
	if err := form.ValidateRequest(kind); err != nil {
		return nil, extproto.Errorf(extproto.ReasonInvalidParams, "sdk: invalid %s request payload: %w", kind, err)
	}
	if form.Fields == nil {
		form.Fields = []extproto.UIFormField{}
	}
	if strings.TrimSpace(surfaceID) == "" {
		surfaceID = string(kind) + "-" + strconv.FormatInt(h.s.surfaces.Add(1), 10)
	}
	raw, err := json.Marshal(form)
	if err != nil {
		return nil, fmt.Errorf("sdk: request %s: %w", surfaceID, err)
	}
	sess := h.Session()
	res, err := call[extproto.UIRequestResult](ctx, h, extproto.MethodUIRequest, extproto.UIRequestParams{
		SurfaceID:  surfaceID,
		SessionID:  sess.SessionID,
		Generation: sess.Generation,
		Kind:       kind,
		Payload:    raw,
	})
	if err != nil {
		return nil, err
	}
	if res.Cancelled {
		return nil, ErrDismissed
	}
	return res.Values, nil
}

// Confirm asks a yes/no question.
func (h *Host) Confirm(ctx context.Context, message string) (bool, error) {
	var v bool
	err := h.ask(ctx, extproto.RequestConfirm, extproto.UIFormField{Label: message}, message, &v)
	return v, err
}

// Input asks for free text; def pre-fills the answer when not empty.
func (h *Host) Input(ctx context.Context, message, def string) (string, error) {
	f := extproto.UIFormField{Label: message}
	if def != "" {
		f.Default, _ = json.Marshal(def)
	}
	var v string
	err := h.ask(ctx, extproto.RequestInput, f, message, &v)
	return v, err
}

// Select asks for one of options.
func (h *Host) Select(ctx context.Context, message string, options []string) (string, error) {
	var v string
	err := h.ask(ctx, extproto.RequestSelect, extproto.UIFormField{Label: message, Options: options}, message, &v)
	return v, err
}

// MultiSelect asks for any of options.
func (h *Host) MultiSelect(ctx context.Context, message string, options []string) ([]string, error) {
	var v []string
	err := h.ask(ctx, extproto.RequestMultiselect, extproto.UIFormField{Label: message, Options: options}, message, &v)
	return v, err
}

// ask is a single-question prompt: one field keyed "value", as the
// Reasonix SDK sends them. An answer without the key means nothing was
// chosen, which the host otherwise reports as a dismissal.
func (h *Host) ask(ctx context.Context, kind extproto.UIRequestKind, f extproto.UIFormField, message string, into any) error {
	f.Key, f.Kind = extproto.SingleQuestionKey, extproto.UIFieldKind(kind)
	values, err := h.Request(ctx, "", kind, extproto.UIFormPayload{Message: message, Fields: []extproto.UIFormField{f}})
	if err != nil {
		return err
	}
	raw, ok := values[extproto.SingleQuestionKey]
	if !ok {
		return ErrDismissed
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return extproto.Errorf(extproto.ReasonProtocolError, "sdk: %s answer is not a %T: %w", kind, into, err)
	}
	return nil
}
