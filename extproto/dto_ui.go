package extproto

import "encoding/json"

// UI method DTOs: extension/ui/action, extension/ui/submit, host/ui/publish
// and host/ui/request. The publish and request payloads are decoded by kind
// in a second step (uipayloads.go), after the stale-generation gate.

// UIActionParams invokes a declared action.
type UIActionParams struct {
	ActionID   string            `json:"actionId" rx:"nonempty"`
	Args       map[string]string `json:"args,omitempty"`
	Generation int64             `json:"generation"`
	SessionID  string            `json:"sessionId" rx:"nonempty"`
}

// UIActionResult answers an action; Message is shown to the user.
type UIActionResult struct {
	Accepted bool   `json:"accepted"`
	Message  string `json:"message,omitempty"`
}

// UISubmitParams delivers a published form's submission. Values is
// required, `{}` when empty.
type UISubmitParams struct {
	Generation int64                      `json:"generation"`
	SessionID  string                     `json:"sessionId" rx:"nonempty"`
	SurfaceID  string                     `json:"surfaceId" rx:"nonempty"`
	Values     map[string]json.RawMessage `json:"values"`
}

// MarshalJSON writes a nil Values as `{}`: the member is a required object.
func (p UISubmitParams) MarshalJSON() ([]byte, error) {
	type plain UISubmitParams
	if p.Values == nil {
		p.Values = map[string]json.RawMessage{}
	}
	return json.Marshal(plain(p))
}

// UISubmitResult acknowledges a submission.
type UISubmitResult struct {
	Accepted bool `json:"accepted"`
}

// UIPublishParams publishes or updates a surface. Payload is the kind's
// payload document (see DecodeSurfacePayload); it may not be null.
type UIPublishParams struct {
	Generation int64           `json:"generation"`
	Kind       UISurfaceKind   `json:"kind"`
	Payload    json.RawMessage `json:"payload"`
	SessionID  string          `json:"sessionId" rx:"nonempty"`
	SurfaceID  string          `json:"surfaceId" rx:"nonempty"`
}

// UIPublishResult is false for a publish from a stale generation or session.
type UIPublishResult struct {
	Accepted bool `json:"accepted"`
}

// UIRequestParams asks the user a blocking question. Payload is always a
// form document (see DecodeRequestPayload).
type UIRequestParams struct {
	Generation int64           `json:"generation"`
	Kind       UIRequestKind   `json:"kind"`
	Payload    json.RawMessage `json:"payload"`
	SessionID  string          `json:"sessionId" rx:"nonempty"`
	SurfaceID  string          `json:"surfaceId" rx:"nonempty"`
}

// UIRequestResult is the user's answer, keyed by field key: a bool for
// confirm, a string for input and select, a string array for multiselect.
// A dismissed prompt is Cancelled, not an error.
type UIRequestResult struct {
	Cancelled bool                       `json:"cancelled"`
	Values    map[string]json.RawMessage `json:"values,omitempty"`
}
