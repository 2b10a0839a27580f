package hookrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Decision is what one hook's run amounts to.
type Decision string

// The decisions of PLUGIN_CONTENTS §6.7.
const (
	Pass  Decision = "pass"
	Block Decision = "block"
	Warn  Decision = "warn"
	Error Decision = "error"
)

// decideOutcome is the table of §6.7: a spawn error never blocks; a
// timeout or exit 2 blocks a blocking event and warns otherwise; exit 0
// passes; any other exit warns.
func decideOutcome(blocking, spawnErr, timedOut bool, exitCode int) Decision {
	switch {
	case spawnErr:
		return Error
	case timedOut, exitCode == 2:
		if blocking {
			return Block
		}
		return Warn
	case exitCode == 0:
		return Pass
	}
	return Warn
}

// Output is what a hook's stdout says as JSON, when it is a JSON object
// (Claude Code's hook output; only Claude-format hooks' is acted on).
type Output struct {
	// JSON is set when stdout was a JSON object (it started with "{").
	JSON bool
	// Deny is a Claude deny: hookSpecificOutput.permissionDecision
	// "deny", hookSpecificOutput.decision.behavior "deny", or (for
	// UserPromptSubmit and, legacy, PreToolUse) a top-level decision
	// "block". Reason is its text.
	Deny   bool
	Reason string
	// Allow is hookSpecificOutput.decision.behavior "allow", or for
	// PreToolUse permissionDecision "allow" or the legacy decision
	// "approve" (which never skip the user's approval here).
	Allow bool
	// Block is a top-level decision "block" of PostToolUse, Stop or
	// SubagentStop: Reason goes to the model (Stop, SubagentStop: the
	// turn goes on with it as the next instruction).
	Block bool
	// AdditionalContext is hookSpecificOutput.additionalContext.
	AdditionalContext string
	// UpdatedInput is PreToolUse's hookSpecificOutput.updatedInput, a
	// JSON object in Claude's tool input shape.
	UpdatedInput json.RawMessage
	// Halt is continue: false: the turn stops after this hook; StopReason
	// is shown to the user, not the model.
	Halt       bool
	StopReason string
	// SuppressOutput hides the hook's stdout from what the user is shown.
	SuppressOutput bool
	// SystemMessage is a warning for the user.
	SystemMessage string
	// Warning is set for invalid JSON or a hookEventName that is not the
	// current event; nothing else is then read.
	Warning string
}

// hookOutput is the part of Claude Code's hook output this host reads.
type hookOutput struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SuppressOutput     bool   `json:"suppressOutput"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput *struct {
		HookEventName            *string         `json:"hookEventName"`
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		Decision                 *struct {
			Behavior string `json:"behavior"`
			Message  string `json:"message"`
		} `json:"decision"`
	} `json:"hookSpecificOutput"`
}

// ParseOutput decodes a hook's stdout for event ev. Only stdout starting
// with "{" (after white space) is read as JSON; anything else is plain
// text and yields the zero Output. It never fails: bad JSON is a Warning.
// The bytes are untrusted (fuzzed).
func ParseOutput(ev Event, stdout string) Output {
	s := strings.TrimSpace(stdout)
	if !strings.HasPrefix(s, "{") {
		return Output{}
	}
	out := Output{JSON: true}
	var o hookOutput
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		out.Warning = fmt.Sprintf("hook %s returned invalid JSON stdout: %v", ev, err)
		return out
	}
	if hs := o.HookSpecificOutput; hs != nil {
		if hs.HookEventName != nil && *hs.HookEventName != string(ev) {
			out.Warning = fmt.Sprintf("hook output event %q does not match current event %q", *hs.HookEventName, ev)
			return out
		}
		out.AdditionalContext = hs.AdditionalContext
		switch {
		case hs.PermissionDecision == "deny":
			out.Deny, out.Reason = true, hs.PermissionDecisionReason
		case hs.Decision != nil && hs.Decision.Behavior == "deny":
			out.Deny, out.Reason = true, hs.Decision.Message
		case hs.Decision != nil && hs.Decision.Behavior == "allow":
			out.Allow = true
		case hs.PermissionDecision == "allow" && ev == PreToolUse:
			out.Allow = true
		}
		if u := bytes.TrimSpace(hs.UpdatedInput); ev == PreToolUse && !out.Deny && len(u) > 0 && u[0] == '{' {
			out.UpdatedInput = u
		}
	}
	out.Halt = o.Continue != nil && !*o.Continue
	out.StopReason, out.SuppressOutput, out.SystemMessage = o.StopReason, o.SuppressOutput, o.SystemMessage
	switch {
	case out.Deny:
	case o.Decision == "block" && (ev == UserPromptSubmit || ev == PreToolUse):
		out.Deny, out.Reason = true, o.Reason
	case o.Decision == "approve" && ev == PreToolUse:
		out.Allow = true
	case o.Decision == "block" && (ev == PostToolUse || ev == Stop || ev == SubagentStop):
		out.Block, out.Reason = true, o.Reason
	}
	return out
}

// honoursDecisions lists the events whose Claude JSON decisions count.
func honoursDecisions(ev Event) bool {
	return ev == PreToolUse || ev == PermissionRequest || ev == UserPromptSubmit
}
