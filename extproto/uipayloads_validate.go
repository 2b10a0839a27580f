package extproto

// Validate methods of the UI documents (SPEC §7, PROTOCOL_DETAILS §8).
// "Required" strings must be non-blank.

// Validate requires a label, a known severity, and progress in [0, 1].
func (p UIStatusPayload) Validate() error {
	if err := requireText("/label", p.Label); err != nil {
		return err
	}
	if err := validateSeverity(p.Severity); err != nil {
		return err
	}
	return validateProgress(p.Progress)
}

// Validate checks every row and action, and progress in [0, 1].
func (p UICardPayload) Validate() error {
	for i, f := range p.Fields {
		if err := requireText("/key", f.Key); err != nil {
			return underPath(err, "fields", i)
		}
	}
	for i, a := range p.Actions {
		if !ValidActionID(a.ActionID) {
			return underPath(fieldErrorf("/actionId", "%q does not match ^[a-z0-9-]+$", clip(a.ActionID)), "actions", i)
		}
		if err := requireText("/label", a.Label); err != nil {
			return underPath(err, "actions", i)
		}
	}
	return validateProgress(p.Progress)
}

// Validate requires the fields array and valid fields with distinct keys.
func (p UIFormPayload) Validate() error {
	if p.Fields == nil {
		return fieldErrorf("/fields", "must be present as an array")
	}
	keys := make(map[string]bool, len(p.Fields))
	for i := range p.Fields {
		if err := p.Fields[i].Validate(); err != nil {
			return underPath(err, "fields", i)
		}
		if keys[p.Fields[i].Key] {
			return underPath(fieldErrorf("/key", "duplicate key %q", clip(p.Fields[i].Key)), "fields", i)
		}
		keys[p.Fields[i].Key] = true
	}
	return nil
}

// ValidateRequest validates the form as the question document of a
// request of kind k. A request without fields is asked as one question of
// kind k (see Questions), which cannot offer options: a select or
// multiselect request must therefore have fields.
func (p UIFormPayload) ValidateRequest(k UIRequestKind) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if len(p.Fields) == 0 && UIFieldKind(k).NeedsOptions() {
		return fieldErrorf("/fields", "a %s request needs a field with options", k)
	}
	return nil
}

// Validate requires a key and a kind; select and multiselect fields need
// at least one option, and no option may be blank.
func (f UIFormField) Validate() error {
	if err := requireText("/key", f.Key); err != nil {
		return err
	}
	if !f.Kind.Valid() {
		return enumError("/kind", string(f.Kind), f.Kind.enumValues())
	}
	if f.Kind.NeedsOptions() && len(f.Options) == 0 {
		return fieldErrorf("/options", "a %s field needs at least one option", f.Kind)
	}
	for i, o := range f.Options {
		if isBlank(o) {
			return underPath(fieldErrorf("", "must not be blank"), "options", i)
		}
	}
	return nil
}

// Validate requires a title and a known severity.
func (p UINotificationPayload) Validate() error {
	if err := requireText("/title", p.Title); err != nil {
		return err
	}
	return validateSeverity(p.Severity)
}

func validateSeverity(s UISeverity) error {
	if s != "" && !s.Valid() {
		return enumError("/severity", string(s), s.enumValues())
	}
	return nil
}

func validateProgress(p *float64) error {
	if p != nil && !(*p >= 0 && *p <= 1) {
		return fieldErrorf("/progress", "must be between 0 and 1")
	}
	return nil
}
