package sdk

import (
	"encoding/json"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Decision is an interceptor's ruling. The zero value is Continue.
type Decision struct {
	kind   extproto.InterceptDecision
	reason string
	// replacement is a extproto.Payload or a json.RawMessage.
	replacement any
}

// Continue passes the payload on unchanged.
func Continue() Decision { return Decision{kind: extproto.DecisionContinue} }

// Block stops the operation; the host shows reason (redacted) to the user.
func Block(reason string) Decision {
	return Decision{kind: extproto.DecisionBlock, reason: reason}
}

// Replace makes payload the point's new payload. It must be the payload
// type of the intercepted point and pass its rule (for input.receive, a
// non-blank text); the SDK checks both before answering, because the host
// would count a bad replacement as a contract violation. The replacement
// replaces the whole value: fields left empty are cleared. It travels
// inline, so it must fit in one 8 MiB frame.
func Replace(payload extproto.Payload) Decision {
	return Decision{kind: extproto.DecisionReplace, replacement: payload}
}

// ReplaceJSON is Replace with the payload's JSON text; it is strictly
// decoded against the point's payload DTO before answering.
func ReplaceJSON(raw json.RawMessage) Decision {
	return Decision{kind: extproto.DecisionReplace, replacement: raw}
}

// Allow approves a tool call; legal only at permission.decision, where it
// overrides a host deny (and the host audits it).
func Allow() Decision { return Decision{kind: extproto.DecisionAllow} }

// Deny refuses a tool call; legal only at permission.decision.
func Deny(reason string) Decision {
	return Decision{kind: extproto.DecisionDeny, reason: reason}
}

// Kind returns the decision's wire value.
func (d Decision) Kind() extproto.InterceptDecision {
	if d.kind == "" {
		return extproto.DecisionContinue
	}
	return d.kind
}

// continueResult is the pre-encoded answer of the most common ruling.
var continueResult = json.RawMessage(`{"decision":"continue"}`)

// result turns d into the wire answer for an intercept at point. A ruling
// the host would reject as a contract violation fails here instead, with a
// message that says what is wrong.
func (d Decision) result(point extproto.HookPoint) (any, error) {
	switch d.Kind() {
	case extproto.DecisionContinue:
		return continueResult, nil
	case extproto.DecisionBlock:
		return extproto.InterceptResult{Decision: extproto.DecisionBlock, Reason: d.reason}, nil
	case extproto.DecisionAllow, extproto.DecisionDeny:
		if point != extproto.PermissionDecision {
			return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: decision %q at %s: allow and deny are legal only at permission.decision", d.kind, point)
		}
		return extproto.InterceptResult{Decision: d.kind, Reason: d.reason}, nil
	case extproto.DecisionReplace:
		raw, err := replacementJSON(point, d.replacement)
		if err != nil {
			return nil, err
		}
		return extproto.InterceptResult{Decision: extproto.DecisionReplace, Replacement: raw}, nil
	}
	return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: unknown decision %q", d.kind)
}

func replacementJSON(point extproto.HookPoint, v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case json.RawMessage:
		if _, err := extproto.DecodePayload(point, v); err != nil {
			return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: replacement at %s: %v", point, err)
		}
		return v, nil
	case extproto.Payload:
		if v.Point() != point {
			return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: replacement at %s is a %s payload", point, v.Point())
		}
		if err := v.Validate(); err != nil {
			return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: replacement at %s: %v", point, err)
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("sdk: replacement at %s: %w", point, err)
		}
		return raw, nil
	}
	return nil, extproto.Errorf(extproto.ReasonInternal, "sdk: replace at %s without a replacement", point)
}
