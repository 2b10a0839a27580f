package extproto

import "encoding/json"

// Interception and observation DTOs: extension/intercept, extension/event,
// extension/resources/changed, and the externalized-field descriptor.

// InterceptParams asks an extension for a ruling at a hook point. Payload
// is the point's payload DTO as JSON; it is `null` when externalized.
type InterceptParams struct {
	Event         HookPoint           `json:"event"`
	Externalized  []ExternalizedField `json:"externalized,omitempty"`
	Payload       json.RawMessage     `json:"payload" rx:"externalizable"`
	Seq           int64               `json:"seq" rx:"min=1"`
	TimeoutMillis int64               `json:"timeoutMillis" rx:"min=0"`
}

// InterceptResult is an extension's ruling. Replacement is the new payload
// for DecisionReplace; it is `null` when externalized.
type InterceptResult struct {
	Decision     InterceptDecision   `json:"decision"`
	Externalized []ExternalizedField `json:"externalized,omitempty"`
	Reason       string              `json:"reason,omitempty"`
	Replacement  json.RawMessage     `json:"replacement,omitempty" rx:"externalizable"`
}

// EventParams is a fire-and-forget observation of a hook point.
type EventParams struct {
	Event        HookPoint           `json:"event"`
	Externalized []ExternalizedField `json:"externalized,omitempty"`
	Payload      json.RawMessage     `json:"payload" rx:"externalizable"`
}

// ResourcesChangedParams lists resource paths that changed.
type ResourcesChangedParams struct {
	Paths []string `json:"paths"`
}

// ExternalizedField says where an externalizable field's bytes went: the
// RFC 6901 pointer of the field inside its DTO, the content ref holding the
// bytes, and their size and lowercase hex SHA-256.
type ExternalizedField struct {
	ContentRef  string `json:"contentRef" rx:"nonempty"`
	JSONPointer string `json:"jsonPointer" rx:"nonempty"`
	SHA256      string `json:"sha256"`
	TotalBytes  int64  `json:"totalBytes" rx:"min=0"`
}

// Validate checks the members of an intercept request.
func (p *InterceptParams) Validate() error {
	if !p.Event.Valid() {
		return enumError("/event", string(p.Event), p.Event.enumValues())
	}
	if p.Seq < 1 {
		return fieldErrorf("/seq", "must be >= 1")
	}
	if p.TimeoutMillis < 0 {
		return fieldErrorf("/timeoutMillis", "must be >= 0")
	}
	return validateExternalized(p.Externalized)
}

// Validate checks the members of an intercept ruling.
func (r *InterceptResult) Validate() error {
	if !r.Decision.Valid() {
		return enumError("/decision", string(r.Decision), r.Decision.enumValues())
	}
	return validateExternalized(r.Externalized)
}

// Validate checks the members of an observation.
func (p *EventParams) Validate() error {
	if !p.Event.Valid() {
		return enumError("/event", string(p.Event), p.Event.enumValues())
	}
	return validateExternalized(p.Externalized)
}

// MarshalJSON writes a nil Paths as `[]`: the member is a required array.
func (p ResourcesChangedParams) MarshalJSON() ([]byte, error) {
	type plain ResourcesChangedParams
	if p.Paths == nil {
		p.Paths = []string{}
	}
	return json.Marshal(plain(p))
}

// Validate checks the descriptor, including that SHA256 is 64 lowercase
// hex characters (no "sha256:" prefix).
func (f *ExternalizedField) Validate() error {
	switch {
	case isBlank(f.ContentRef):
		return fieldErrorf("/contentRef", "must not be blank")
	case isBlank(f.JSONPointer):
		return fieldErrorf("/jsonPointer", "must not be blank")
	case f.TotalBytes < 0:
		return fieldErrorf("/totalBytes", "must be >= 0")
	case !ValidSHA256(f.SHA256):
		return fieldErrorf("/sha256", "must be 64 lowercase hex characters")
	}
	return nil
}

func validateExternalized(fs []ExternalizedField) error {
	for i := range fs {
		if err := fs[i].Validate(); err != nil {
			return underPath(err, "externalized", i)
		}
	}
	return nil
}
