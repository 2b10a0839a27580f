package extproto

import (
	"encoding/json"
	"reflect"
)

// The payload DTO of each hook point: what `payload` of InterceptParams
// and EventParams carries, and what a `replace` ruling's `replacement` must
// decode as. Members are camelCase and all optional (omitted when empty);
// each type's Validate is the point's replacement rule. A replacement
// replaces the whole value: nothing is merged with the previous payload.

// Payload is the payload DTO of one hook point.
type Payload interface {
	// Point is the hook point whose payload this is.
	Point() HookPoint
	// Validate applies the point's rule; a failure is a *FieldError.
	Validate() error
}

// InputReceivePayload is the user's input. Emptying it is not a valid
// replacement: an interceptor that wants to drop the input blocks.
type InputReceivePayload struct {
	Text string `json:"text,omitempty"`
}

// AgentBeforeStartPayload precedes an agent run.
type AgentBeforeStartPayload struct {
	Model     string `json:"model,omitempty"`
	SessionID string `json:"sessionId,omitempty"`
	ToolCount int    `json:"toolCount,omitempty"`
}

// SystemPromptBuildPayload is the system prompt being built; the prompt
// itself may be empty.
type SystemPromptBuildPayload struct {
	Prompt        string `json:"prompt,omitempty"`
	WorkspaceRoot string `json:"workspaceRoot,omitempty"`
}

// ContextPreparePayload is the message list of the next request. An empty
// list is sent as `{}` (omitempty), but a replacement must carry
// `"messages":[]` at least: Messages is nil when the member was absent.
type ContextPreparePayload struct {
	Messages []ProviderMessage `json:"messages,omitempty"`
}

// ProviderRequestPayload is the fully assembled request before it goes to
// the provider.
type ProviderRequestPayload struct {
	Request *ProviderRequest `json:"request,omitempty"`
}

// ProviderResponsePayload is a successful response before it is persisted.
type ProviderResponsePayload struct {
	Calls     []ProviderToolCall `json:"calls,omitempty"`
	Reasoning string             `json:"reasoning,omitempty"`
	Signature string             `json:"signature,omitempty"`
	Text      string             `json:"text,omitempty"`
	Usage     *ProviderUsage     `json:"usage,omitempty"`
}

// ToolBeforePayload is a parsed tool call about to run. Arguments is the
// text of the call's JSON argument object.
type ToolBeforePayload struct {
	Arguments string `json:"arguments,omitempty"`
	Name      string `json:"name,omitempty"`
}

// ToolAfterPayload is a tool call and its result. A replacement's Result
// becomes the tool result; toggling IsError turns success into error or
// back.
type ToolAfterPayload struct {
	Arguments string `json:"arguments,omitempty"`
	IsError   bool   `json:"isError,omitempty"`
	Name      string `json:"name,omitempty"`
	Result    string `json:"result,omitempty"`
}

// PermissionDecisionPayload is a tool call with the host's own verdict.
type PermissionDecisionPayload struct {
	Arguments    string       `json:"arguments,omitempty"`
	HostDecision HostDecision `json:"hostDecision,omitempty"`
	Name         string       `json:"name,omitempty"`
	ReadOnly     bool         `json:"readOnly,omitempty"`
}

// CompactionPreparePayload is the history about to be summarised; like
// ContextPreparePayload, a replacement must carry the messages array.
type CompactionPreparePayload struct {
	Guidance string            `json:"guidance,omitempty"`
	Messages []ProviderMessage `json:"messages,omitempty"`
}

// CompactionCompletePayload is the summary about to be persisted.
type CompactionCompletePayload struct {
	Summary string `json:"summary,omitempty"`
}

// FrontendEventPayload is an event on its way to the frontends.
type FrontendEventPayload struct {
	Detail string `json:"detail,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Text   string `json:"text,omitempty"`
}

// SessionPayload is the payload of the five session.* points, whose Phase
// names the point. Each point has its own type below so that a payload
// knows its point; they convert to and from SessionPayload.
type SessionPayload struct {
	Phase       SessionPhase `json:"phase,omitempty"`
	SessionPath string       `json:"sessionPath,omitempty"`
}

// The session point payloads.
type (
	SessionStartPayload  SessionPayload
	SessionEndPayload    SessionPayload
	SessionLoadPayload   SessionPayload
	SessionSavePayload   SessionPayload
	SessionRotatePayload SessionPayload
)

// payloadTypes maps each point to its payload DTO.
var payloadTypes = map[HookPoint]reflect.Type{
	AgentBeforeStart:   reflect.TypeFor[AgentBeforeStartPayload](),
	CompactionComplete: reflect.TypeFor[CompactionCompletePayload](),
	CompactionPrepare:  reflect.TypeFor[CompactionPreparePayload](),
	ContextPrepare:     reflect.TypeFor[ContextPreparePayload](),
	FrontendEvent:      reflect.TypeFor[FrontendEventPayload](),
	InputReceive:       reflect.TypeFor[InputReceivePayload](),
	PermissionDecision: reflect.TypeFor[PermissionDecisionPayload](),
	ProviderRequestPt:  reflect.TypeFor[ProviderRequestPayload](),
	ProviderResponsePt: reflect.TypeFor[ProviderResponsePayload](),
	SessionEnd:         reflect.TypeFor[SessionEndPayload](),
	SessionLoad:        reflect.TypeFor[SessionLoadPayload](),
	SessionRotate:      reflect.TypeFor[SessionRotatePayload](),
	SessionSave:        reflect.TypeFor[SessionSavePayload](),
	SessionStart:       reflect.TypeFor[SessionStartPayload](),
	SystemPromptBuild:  reflect.TypeFor[SystemPromptBuildPayload](),
	ToolAfter:          reflect.TypeFor[ToolAfterPayload](),
	ToolBefore:         reflect.TypeFor[ToolBeforePayload](),
}

// NewPayload returns a new zero payload DTO of point p (a pointer, e.g.
// *ToolBeforePayload), or nil for an unknown point.
func NewPayload(p HookPoint) Payload {
	t, ok := payloadTypes[p]
	if !ok {
		return nil
	}
	return reflect.New(t).Interface().(Payload)
}

// DecodePayload strictly decodes raw as the payload of point p (unknown
// members rejected at every level, exact-case names, no trailing data;
// see Decode) and then applies the point's Validate. It returns a pointer
// to the point's DTO. A failure is an *Error with reason invalid_params,
// message "invalid <point> payload: <pointer>: <detail>"; callers that
// judge a replacement report it as a contract violation.
func DecodePayload(p HookPoint, raw json.RawMessage) (Payload, error) {
	t, ok := payloadTypes[p]
	if !ok {
		return nil, Errorf(ReasonInvalidParams, "unknown hook point %q", clip(string(p)))
	}
	v := reflect.New(t)
	if err := decodeRoot(shapeOf(t), raw, v.Elem()); err != nil {
		return nil, Errorf(ReasonInvalidParams, "invalid %s payload: %w", p, err)
	}
	return v.Interface().(Payload), nil
}
