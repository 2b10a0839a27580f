package hookrun

import "time"

// Event is a hook event name, exactly as manifests and settings spell it.
type Event string

// The events of PLUGIN_CONTENTS §6.2.
const (
	PreToolUse         Event = "PreToolUse"
	PostToolUse        Event = "PostToolUse"
	PostToolUseFailure Event = "PostToolUseFailure"
	PermissionRequest  Event = "PermissionRequest"
	UserPromptSubmit   Event = "UserPromptSubmit"
	Stop               Event = "Stop"
	StopFailure        Event = "StopFailure"
	PostLLMCall        Event = "PostLLMCall"
	SessionStart       Event = "SessionStart"
	SessionEnd         Event = "SessionEnd"
	SubagentStop       Event = "SubagentStop"
	Notification       Event = "Notification"
	PreCompact         Event = "PreCompact"
)

// Events lists every event, in the order of the reference's table.
var Events = []Event{
	PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest,
	UserPromptSubmit, Stop, StopFailure, PostLLMCall, SessionStart,
	SessionEnd, SubagentStop, Notification, PreCompact,
}

// Known reports whether e is one of Events. Hooks of any other event are
// dropped at load time.
func (e Event) Known() bool {
	for _, k := range Events {
		if k == e {
			return true
		}
	}
	return false
}

// DefaultTimeout is the event's timeout for a hook that declares none:
// 5 s for the events that may block, 30 s for the observers.
func (e Event) DefaultTimeout() time.Duration {
	switch e {
	case PreToolUse, PermissionRequest, UserPromptSubmit:
		return 5 * time.Second
	}
	return 30 * time.Second
}

// usesMatcher reports whether the hook's match pattern selects tools for
// this event; every other event ignores it.
func (e Event) usesMatcher() bool {
	switch e {
	case PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest:
		return true
	}
	return false
}

// blocking reports whether a hook of this event and payload format can
// block: PreToolUse and UserPromptSubmit always, PermissionRequest only
// for Claude-format hooks.
func (e Event) blocking(claude bool) bool {
	switch e {
	case PreToolUse, UserPromptSubmit:
		return true
	case PermissionRequest:
		return claude
	}
	return false
}
