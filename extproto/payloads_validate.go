package extproto

// Point and Validate of every payload DTO: the replacement rules of the
// hook point table (SPEC §3, PROTOCOL_DETAILS §4.2).

// Point implements Payload.
func (InputReceivePayload) Point() HookPoint { return InputReceive }

// Validate requires non-blank text.
func (p InputReceivePayload) Validate() error { return requireText("/text", p.Text) }

// Point implements Payload.
func (AgentBeforeStartPayload) Point() HookPoint { return AgentBeforeStart }

// Validate requires a session id and a non-negative tool count.
func (p AgentBeforeStartPayload) Validate() error {
	if p.ToolCount < 0 {
		return fieldErrorf("/toolCount", "must be >= 0")
	}
	return requireText("/sessionId", p.SessionID)
}

// Point implements Payload.
func (SystemPromptBuildPayload) Point() HookPoint { return SystemPromptBuild }

// Validate requires the workspace root; the prompt may be empty.
func (p SystemPromptBuildPayload) Validate() error {
	return requireText("/workspaceRoot", p.WorkspaceRoot)
}

// Point implements Payload.
func (ContextPreparePayload) Point() HookPoint { return ContextPrepare }

// Validate requires the messages array (possibly empty) and valid messages.
func (p ContextPreparePayload) Validate() error { return validateMessages(p.Messages) }

// Point implements Payload.
func (ProviderRequestPayload) Point() HookPoint { return ProviderRequestPt }

// Validate requires a request that passes the ProviderRequest rules.
func (p ProviderRequestPayload) Validate() error {
	if p.Request == nil {
		return fieldErrorf("/request", "required")
	}
	if err := p.Request.Validate(); err != nil {
		return underPath(err, "request")
	}
	return nil
}

// Point implements Payload.
func (ProviderResponsePayload) Point() HookPoint { return ProviderResponsePt }

// Validate requires an id and a name on every call, and a valid usage.
func (p ProviderResponsePayload) Validate() error {
	if err := validateToolCalls(p.Calls, "calls"); err != nil {
		return err
	}
	if p.Usage != nil {
		if err := p.Usage.Validate(); err != nil {
			return underPath(err, "usage")
		}
	}
	return nil
}

// Point implements Payload.
func (ToolBeforePayload) Point() HookPoint { return ToolBefore }

// Validate requires the tool name and object (or empty) arguments.
func (p ToolBeforePayload) Validate() error { return validateToolCall(p.Name, p.Arguments) }

// Point implements Payload.
func (ToolAfterPayload) Point() HookPoint { return ToolAfter }

// Validate applies the tool.before rule.
func (p ToolAfterPayload) Validate() error { return validateToolCall(p.Name, p.Arguments) }

// Point implements Payload.
func (PermissionDecisionPayload) Point() HookPoint { return PermissionDecision }

// Validate requires the tool name, object (or empty) arguments, and a host
// decision of allow or deny.
func (p PermissionDecisionPayload) Validate() error {
	if err := validateToolCall(p.Name, p.Arguments); err != nil {
		return err
	}
	if !p.HostDecision.Valid() {
		return enumError("/hostDecision", string(p.HostDecision), p.HostDecision.enumValues())
	}
	return nil
}

// Point implements Payload.
func (CompactionPreparePayload) Point() HookPoint { return CompactionPrepare }

// Validate requires the messages array (possibly empty) and valid messages.
func (p CompactionPreparePayload) Validate() error { return validateMessages(p.Messages) }

// Point implements Payload.
func (CompactionCompletePayload) Point() HookPoint { return CompactionComplete }

// Validate requires a non-blank summary.
func (p CompactionCompletePayload) Validate() error { return requireText("/summary", p.Summary) }

// Point implements Payload.
func (FrontendEventPayload) Point() HookPoint { return FrontendEvent }

// Validate requires a non-blank kind.
func (p FrontendEventPayload) Validate() error { return requireText("/kind", p.Kind) }

// Point implements Payload.
func (SessionStartPayload) Point() HookPoint { return SessionStart }

// Validate requires phase "start".
func (p SessionStartPayload) Validate() error { return SessionPayload(p).validateAt(SessionStart) }

// Point implements Payload.
func (SessionEndPayload) Point() HookPoint { return SessionEnd }

// Validate requires phase "end".
func (p SessionEndPayload) Validate() error { return SessionPayload(p).validateAt(SessionEnd) }

// Point implements Payload.
func (SessionLoadPayload) Point() HookPoint { return SessionLoad }

// Validate requires phase "load".
func (p SessionLoadPayload) Validate() error { return SessionPayload(p).validateAt(SessionLoad) }

// Point implements Payload.
func (SessionSavePayload) Point() HookPoint { return SessionSave }

// Validate requires phase "save".
func (p SessionSavePayload) Validate() error { return SessionPayload(p).validateAt(SessionSave) }

// Point implements Payload.
func (SessionRotatePayload) Point() HookPoint { return SessionRotate }

// Validate requires phase "rotate".
func (p SessionRotatePayload) Validate() error { return SessionPayload(p).validateAt(SessionRotate) }

// validateAt requires a phase from the five, equal to point's phase: a
// replacement may not move a session event to another phase.
func (p SessionPayload) validateAt(point HookPoint) error {
	if !p.Phase.Valid() {
		return enumError("/phase", string(p.Phase), p.Phase.enumValues())
	}
	if want := point.SessionPhase(); string(p.Phase) != want {
		return fieldErrorf("/phase", "is %q but %s requires %q", p.Phase, point, want)
	}
	return nil
}

func requireText(pointer, s string) error {
	if isBlank(s) {
		return fieldErrorf(pointer, "must not be blank")
	}
	return nil
}

func validateMessages(msgs []ProviderMessage) error {
	if msgs == nil {
		return fieldErrorf("/messages", "must be present as an array")
	}
	for i := range msgs {
		if err := msgs[i].Validate(); err != nil {
			return underPath(err, "messages", i)
		}
	}
	return nil
}

// validateToolCall is the rule shared by the tool and permission points:
// a name, and arguments that are empty or the text of one JSON object.
func validateToolCall(name, arguments string) error {
	if err := requireText("/name", name); err != nil {
		return err
	}
	if !isBlank(arguments) && !isJSONObject(readOnlyBytes(arguments)) {
		return fieldErrorf("/arguments", "must be empty or the text of a JSON object")
	}
	return nil
}
