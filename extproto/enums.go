package extproto

import "slices"

// The closed string sets of the schema. Each enum type lists its values in
// lexical order (the schema's order) and reports them through enumValues,
// which is how the strict decoder and the schema generator learn the set:
// the lists below are the only place a value is spelled.

// enumer is implemented by every enum type; the decoder rejects any value
// outside enumValues and the generator emits it as the property's "enum".
type enumer interface{ enumValues() []string }

func enumStrings[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

func (p HookPoint) enumValues() []string { return enumStrings(HookPoints) }

// InterceptDecision is an extension's ruling on an intercept.
type InterceptDecision string

// The five decisions. Allow and deny are legal only at permission.decision.
const (
	DecisionAllow    InterceptDecision = "allow"
	DecisionBlock    InterceptDecision = "block"
	DecisionContinue InterceptDecision = "continue"
	DecisionDeny     InterceptDecision = "deny"
	DecisionReplace  InterceptDecision = "replace"
)

// InterceptDecisions lists the decisions in lexical order.
var InterceptDecisions = []InterceptDecision{DecisionAllow, DecisionBlock, DecisionContinue, DecisionDeny, DecisionReplace}

// Valid reports whether d is one of the five decisions.
func (d InterceptDecision) Valid() bool { return slices.Contains(InterceptDecisions, d) }

func (InterceptDecision) enumValues() []string { return enumStrings(InterceptDecisions) }

// UIHostKind names the kind of user interface the host offers.
type UIHostKind string

// The host UI kinds.
const (
	UIHostACP      UIHostKind = "acp"
	UIHostDesktop  UIHostKind = "desktop"
	UIHostHeadless UIHostKind = "headless"
	UIHostTUI      UIHostKind = "tui"
)

// UIHostKinds lists the host UI kinds in lexical order.
var UIHostKinds = []UIHostKind{UIHostACP, UIHostDesktop, UIHostHeadless, UIHostTUI}

// Valid reports whether k is a host UI kind.
func (k UIHostKind) Valid() bool { return slices.Contains(UIHostKinds, k) }

func (UIHostKind) enumValues() []string { return enumStrings(UIHostKinds) }

// UISurfaceKind is the kind of a published surface.
type UISurfaceKind string

// The surface kinds of host/ui/publish.
const (
	SurfaceCard         UISurfaceKind = "card"
	SurfaceForm         UISurfaceKind = "form"
	SurfaceNotification UISurfaceKind = "notification"
	SurfaceStatus       UISurfaceKind = "status"
)

// UISurfaceKinds lists the surface kinds in lexical order.
var UISurfaceKinds = []UISurfaceKind{SurfaceCard, SurfaceForm, SurfaceNotification, SurfaceStatus}

// Valid reports whether k is a surface kind.
func (k UISurfaceKind) Valid() bool { return slices.Contains(UISurfaceKinds, k) }

func (UISurfaceKind) enumValues() []string { return enumStrings(UISurfaceKinds) }

// UIRequestKind is the kind of a blocking host/ui/request prompt.
type UIRequestKind string

// The request kinds of host/ui/request.
const (
	RequestConfirm     UIRequestKind = "confirm"
	RequestInput       UIRequestKind = "input"
	RequestMultiselect UIRequestKind = "multiselect"
	RequestSelect      UIRequestKind = "select"
)

// UIRequestKinds lists the request kinds in lexical order.
var UIRequestKinds = []UIRequestKind{RequestConfirm, RequestInput, RequestMultiselect, RequestSelect}

// Valid reports whether k is a request kind.
func (k UIRequestKind) Valid() bool { return slices.Contains(UIRequestKinds, k) }

func (UIRequestKind) enumValues() []string { return enumStrings(UIRequestKinds) }

// UIFieldKind is the kind of one form field. It has the same values as
// UIRequestKind: a prompt without fields is one field of the request's kind.
type UIFieldKind string

// The form field kinds.
const (
	FieldConfirm     UIFieldKind = "confirm"
	FieldInput       UIFieldKind = "input"
	FieldMultiselect UIFieldKind = "multiselect"
	FieldSelect      UIFieldKind = "select"
)

// UIFieldKinds lists the field kinds in lexical order.
var UIFieldKinds = []UIFieldKind{FieldConfirm, FieldInput, FieldMultiselect, FieldSelect}

// Valid reports whether k is a field kind.
func (k UIFieldKind) Valid() bool { return slices.Contains(UIFieldKinds, k) }

// NeedsOptions reports whether a field of kind k must offer options.
func (k UIFieldKind) NeedsOptions() bool { return k == FieldSelect || k == FieldMultiselect }

func (UIFieldKind) enumValues() []string { return enumStrings(UIFieldKinds) }

// UISeverity grades a status or notification.
type UISeverity string

// The severities.
const (
	SeverityError UISeverity = "error"
	SeverityInfo  UISeverity = "info"
	SeverityWarn  UISeverity = "warn"
)

// UISeverities lists the severities in lexical order.
var UISeverities = []UISeverity{SeverityError, SeverityInfo, SeverityWarn}

// Valid reports whether s is a severity.
func (s UISeverity) Valid() bool { return slices.Contains(UISeverities, s) }

func (UISeverity) enumValues() []string { return enumStrings(UISeverities) }

// ProviderRole is the author of one provider message.
type ProviderRole string

// The message roles.
const (
	RoleAssistant ProviderRole = "assistant"
	RoleSystem    ProviderRole = "system"
	RoleTool      ProviderRole = "tool"
	RoleUser      ProviderRole = "user"
)

// ProviderRoles lists the roles in lexical order.
var ProviderRoles = []ProviderRole{RoleAssistant, RoleSystem, RoleTool, RoleUser}

// Valid reports whether r is a role.
func (r ProviderRole) Valid() bool { return slices.Contains(ProviderRoles, r) }

func (ProviderRole) enumValues() []string { return enumStrings(ProviderRoles) }

// ProviderChunkType is the type of one provider stream chunk.
type ProviderChunkType string

// The chunk types.
const (
	ChunkDone              ProviderChunkType = "done"
	ChunkError             ProviderChunkType = "error"
	ChunkReasoning         ProviderChunkType = "reasoning"
	ChunkText              ProviderChunkType = "text"
	ChunkToolCall          ProviderChunkType = "tool_call"
	ChunkToolCallArgsDelta ProviderChunkType = "tool_call_args_delta"
	ChunkToolCallStart     ProviderChunkType = "tool_call_start"
	ChunkUsage             ProviderChunkType = "usage"
)

// ProviderChunkTypes lists the chunk types in lexical order.
var ProviderChunkTypes = []ProviderChunkType{
	ChunkDone, ChunkError, ChunkReasoning, ChunkText,
	ChunkToolCall, ChunkToolCallArgsDelta, ChunkToolCallStart, ChunkUsage,
}

// Valid reports whether t is a chunk type.
func (t ProviderChunkType) Valid() bool { return slices.Contains(ProviderChunkTypes, t) }

func (ProviderChunkType) enumValues() []string { return enumStrings(ProviderChunkTypes) }

// ProviderErrorCode classifies a provider error chunk. Its values are the
// two provider reasons of the error table, spelled there.
type ProviderErrorCode string

// The provider error codes.
const (
	ProviderCodeFailed      = ProviderErrorCode(ReasonProviderFailed)
	ProviderCodeInterrupted = ProviderErrorCode(ReasonProviderInterrupted)
)

// ProviderErrorCodes lists the codes in lexical order.
var ProviderErrorCodes = []ProviderErrorCode{ProviderCodeFailed, ProviderCodeInterrupted}

// Valid reports whether c is a provider error code.
func (c ProviderErrorCode) Valid() bool { return slices.Contains(ProviderErrorCodes, c) }

// Reason returns the error reason the code maps to.
func (c ProviderErrorCode) Reason() Reason { return Reason(c) }

func (ProviderErrorCode) enumValues() []string { return enumStrings(ProviderErrorCodes) }

// ContentEncoding is the encoding of content-store bytes.
type ContentEncoding string

// EncodingUTF8 is the only content encoding of v1.
const EncodingUTF8 ContentEncoding = "utf8"

// ContentEncodings lists the encodings.
var ContentEncodings = []ContentEncoding{EncodingUTF8}

// Valid reports whether e is a content encoding.
func (e ContentEncoding) Valid() bool { return slices.Contains(ContentEncodings, e) }

func (ContentEncoding) enumValues() []string { return enumStrings(ContentEncodings) }

// SessionPhase is the phase member of the session.* payloads. It is not a
// schema enum (payloads are not in $defs) but decodes as one.
type SessionPhase string

// The session phases, one per session.* hook point.
const (
	PhaseEnd    SessionPhase = "end"
	PhaseLoad   SessionPhase = "load"
	PhaseRotate SessionPhase = "rotate"
	PhaseSave   SessionPhase = "save"
	PhaseStart  SessionPhase = "start"
)

// SessionPhases lists the phases in lexical order.
var SessionPhases = []SessionPhase{PhaseEnd, PhaseLoad, PhaseRotate, PhaseSave, PhaseStart}

// Valid reports whether p is a phase.
func (p SessionPhase) Valid() bool { return slices.Contains(SessionPhases, p) }

func (SessionPhase) enumValues() []string { return enumStrings(SessionPhases) }

// HostDecision is the host's own permission verdict, sent to
// permission.decision interceptors. Its values are the allow and deny
// decisions.
type HostDecision string

// The host verdicts.
const (
	HostAllow = HostDecision(DecisionAllow)
	HostDeny  = HostDecision(DecisionDeny)
)

// HostDecisions lists the host verdicts in lexical order.
var HostDecisions = []HostDecision{HostAllow, HostDeny}

// Valid reports whether d is a host verdict.
func (d HostDecision) Valid() bool { return slices.Contains(HostDecisions, d) }

func (HostDecision) enumValues() []string { return enumStrings(HostDecisions) }
