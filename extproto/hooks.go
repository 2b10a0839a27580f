package extproto

import (
	"fmt"
	"strings"
	"time"
)

// HookPoint is one of the 17 frozen interception points.
type HookPoint string

// The 17 hook points, in the schema's (lexical) order.
const (
	AgentBeforeStart   HookPoint = "agent.before_start"
	CompactionComplete HookPoint = "compaction.complete"
	CompactionPrepare  HookPoint = "compaction.prepare"
	ContextPrepare     HookPoint = "context.prepare"
	FrontendEvent      HookPoint = "frontend.event"
	InputReceive       HookPoint = "input.receive"
	PermissionDecision HookPoint = "permission.decision"
	ProviderRequestPt  HookPoint = "provider.request"
	ProviderResponsePt HookPoint = "provider.response"
	SessionEnd         HookPoint = "session.end"
	SessionLoad        HookPoint = "session.load"
	SessionRotate      HookPoint = "session.rotate"
	SessionSave        HookPoint = "session.save"
	SessionStart       HookPoint = "session.start"
	SystemPromptBuild  HookPoint = "system_prompt.build"
	ToolAfter          HookPoint = "tool.after"
	ToolBefore         HookPoint = "tool.before"
)

// HookPoints lists the 17 points in lexical order.
var HookPoints = []HookPoint{
	AgentBeforeStart, CompactionComplete, CompactionPrepare, ContextPrepare,
	FrontendEvent, InputReceive, PermissionDecision, ProviderRequestPt,
	ProviderResponsePt, SessionEnd, SessionLoad, SessionRotate, SessionSave,
	SessionStart, SystemPromptBuild, ToolAfter, ToolBefore,
}

// ParseHookPoint returns the hook point named s.
func ParseHookPoint(s string) (HookPoint, error) {
	p := HookPoint(s)
	if p.Valid() {
		return p, nil
	}
	return "", fmt.Errorf("unknown hook point %q", s)
}

// Valid reports whether p is one of the 17 points.
func (p HookPoint) Valid() bool {
	for _, q := range HookPoints {
		if p == q {
			return true
		}
	}
	return false
}

// DefaultTimeout is the point's intercept budget when the manifest sets no
// runtime.timeoutMillis: 5 s for input, tool and permission points, 30 s
// for every other.
func (p HookPoint) DefaultTimeout() time.Duration {
	switch p {
	case InputReceive, ToolBefore, ToolAfter, PermissionDecision:
		return InterceptTimeoutShort
	}
	return InterceptTimeoutLong
}

// InterceptTimeout is the budget for p given a manifest's timeoutMillis
// (0 = the point's default), clamped to the 60 s ceiling.
func (p HookPoint) InterceptTimeout(timeoutMillis int64) time.Duration {
	if timeoutMillis <= 0 {
		return p.DefaultTimeout()
	}
	d := time.Duration(timeoutMillis) * time.Millisecond
	if d > InterceptTimeoutCeiling {
		return InterceptTimeoutCeiling
	}
	return d
}

// SessionPhase returns the phase of a session.* point ("start", ...), or "".
func (p HookPoint) SessionPhase() string {
	if rest, ok := strings.CutPrefix(string(p), "session."); ok {
		return rest
	}
	return ""
}

// Capability is one of the four runtime capability families.
type Capability string

// The capability families a runtime may declare.
const (
	CapInterceptors Capability = "interceptors"
	CapStrategies   Capability = "strategies"
	CapProviders    Capability = "providers"
	CapUI           Capability = "ui"
)

// Capabilities lists the four families.
var Capabilities = []Capability{CapInterceptors, CapStrategies, CapProviders, CapUI}

// ParseCapability returns the capability named s.
func ParseCapability(s string) (Capability, error) {
	for _, c := range Capabilities {
		if string(c) == s {
			return c, nil
		}
	}
	return "", fmt.Errorf("unknown capability %q", s)
}

// SlotKind classifies a replacement slot.
type SlotKind string

// The named slots, plus the two parameterised families.
const (
	SlotSystemPrompt     SlotKind = "system_prompt"
	SlotContext          SlotKind = "context"
	SlotProviderRequest  SlotKind = "provider_request"
	SlotProviderResponse SlotKind = "provider_response"
	SlotCompaction       SlotKind = "compaction"
	SlotSessionPolicy    SlotKind = "session_policy"
	SlotPermission       SlotKind = "permission"
	SlotFrontendEvents   SlotKind = "frontend_events"
	SlotTool             SlotKind = "tool"
	SlotProvider         SlotKind = "provider"
)

// NamedSlots lists the eight fixed slot names.
var NamedSlots = []SlotKind{
	SlotSystemPrompt, SlotContext, SlotProviderRequest, SlotProviderResponse,
	SlotCompaction, SlotSessionPolicy, SlotPermission, SlotFrontendEvents,
}

// Slot is a parsed replacement slot: a named slot, `tool:<name>` or
// `provider:<ref>`.
type Slot struct {
	Kind SlotKind
	// Arg is the tool name or provider ref; empty for named slots.
	Arg string
}

// String returns the slot's wire form.
func (s Slot) String() string {
	if s.Kind == SlotTool || s.Kind == SlotProvider {
		return string(s.Kind) + ":" + s.Arg
	}
	return string(s.Kind)
}

// ParseSlot parses a slot string as the manifest and handshake carry it.
func ParseSlot(s string) (Slot, error) {
	if name, ok := strings.CutPrefix(s, "tool:"); ok {
		if name == "" || strings.ContainsAny(name, " \t\r\n") {
			return Slot{}, fmt.Errorf("invalid tool slot %q: want tool:<name> with a non-empty name without whitespace", s)
		}
		return Slot{Kind: SlotTool, Arg: name}, nil
	}
	if ref, ok := strings.CutPrefix(s, "provider:"); ok {
		if err := ValidateProviderRef(ref); err != nil {
			return Slot{}, fmt.Errorf("invalid provider slot %q: want provider:<name>/<model> or provider:plugin/<plugin>/<name>/<model>", s)
		}
		return Slot{Kind: SlotProvider, Arg: ref}, nil
	}
	for _, k := range NamedSlots {
		if string(k) == s {
			return Slot{Kind: k}, nil
		}
	}
	return Slot{}, fmt.Errorf("unknown slot %q", s)
}

// ValidateProviderRef accepts `<provider>/<model>` (exactly one slash, both
// parts non-empty) and `plugin/<plugin>/<provider>/<model>` (all parts
// non-empty).
func ValidateProviderRef(ref string) error {
	parts := strings.Split(ref, "/")
	for _, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\r\n") {
			return fmt.Errorf("invalid provider ref %q", ref)
		}
	}
	switch {
	case len(parts) == 2:
		return nil
	case len(parts) == 4 && parts[0] == "plugin":
		return nil
	}
	return fmt.Errorf("invalid provider ref %q: want <provider>/<model> or plugin/<plugin>/<provider>/<model>", ref)
}

// PluginProviderPrefix is the ref prefix every provider of plugin id must use.
func PluginProviderPrefix(pluginID string) string { return "plugin/" + pluginID + "/" }

// Points returns the hook points at which the slot's owner rules. tool:
// slots rule at tool.before and tool.after; provider: slots at none (the
// owner serves the ref's streams instead).
func (s Slot) Points() []HookPoint {
	switch s.Kind {
	case SlotSystemPrompt:
		return []HookPoint{SystemPromptBuild}
	case SlotContext:
		return []HookPoint{ContextPrepare}
	case SlotProviderRequest:
		return []HookPoint{ProviderRequestPt}
	case SlotProviderResponse:
		return []HookPoint{ProviderResponsePt}
	case SlotCompaction:
		return []HookPoint{CompactionPrepare, CompactionComplete}
	case SlotSessionPolicy:
		return []HookPoint{SessionStart, SessionEnd, SessionLoad, SessionSave, SessionRotate}
	case SlotPermission:
		return []HookPoint{PermissionDecision}
	case SlotFrontendEvents:
		return []HookPoint{FrontendEvent}
	case SlotTool:
		return []HookPoint{ToolBefore, ToolAfter}
	}
	return nil
}

// SlotForPoint returns the named slot whose owner rules p, if any.
func SlotForPoint(p HookPoint) (SlotKind, bool) {
	for _, k := range NamedSlots {
		for _, q := range (Slot{Kind: k}).Points() {
			if q == p {
				return k, true
			}
		}
	}
	return "", false
}

// IsStrategyPoint reports whether point is ruled by its slot owner alone,
// as in Reasonix (PROTOCOL_DETAILS §4.2, §5): system_prompt.build, once per
// runtime build, and the five session.* points. The plugins that
// intercept such a point only observe it (extension/event).
func IsStrategyPoint(point HookPoint) bool {
	switch point {
	case SystemPromptBuild, SessionStart, SessionLoad, SessionSave, SessionRotate, SessionEnd:
		return true
	}
	return false
}
