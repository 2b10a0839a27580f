package hookrun

import (
	"bytes"
	"encoding/json"
)

// Payload is what a hook is told about the moment it runs at. The runner
// sets the event; Cwd defaults to the workspace. Which members each event
// sets is the table of PLUGIN_CONTENTS §6.2.
type Payload struct {
	SessionID string
	Cwd       string
	// ToolName is the agent's tool name (for a proxied call: the real
	// target); ToolArgs its arguments as JSON.
	ToolName string
	ToolArgs json.RawMessage
	// Subject is what a PermissionRequest asks about.
	Subject string
	// ToolResult is the tool's output (PostToolUse, PostToolUseFailure).
	ToolResult        string
	Prompt            string
	LastAssistantText string
	Turn              int
	Message           string
	// Trigger is "auto" or "manual" (PreCompact).
	Trigger   string
	Reasoning string
	Error     string
	// Source is "startup" or "clear" (SessionStart); Reason is "clear" or
	// "other" (SessionEnd).
	Source           string
	Reason           string
	NotificationType string
	IsInterrupt      bool
}

// nativePayload is the camelCase stdin document: empty members omitted
// except event and cwd.
type nativePayload struct {
	Event             Event           `json:"event"`
	SessionID         string          `json:"sessionId,omitempty"`
	Cwd               string          `json:"cwd"`
	ToolName          string          `json:"toolName,omitempty"`
	ToolArgs          json.RawMessage `json:"toolArgs,omitempty"`
	Subject           string          `json:"subject,omitempty"`
	ToolResult        string          `json:"toolResult,omitempty"`
	Prompt            string          `json:"prompt,omitempty"`
	LastAssistantText string          `json:"lastAssistantText,omitempty"`
	Turn              int             `json:"turn,omitempty"`
	Message           string          `json:"message,omitempty"`
	Trigger           string          `json:"trigger,omitempty"`
	Reasoning         string          `json:"reasoning,omitempty"`
	Error             string          `json:"error,omitempty"`
	Source            string          `json:"source,omitempty"`
	Reason            string          `json:"reason,omitempty"`
	NotificationType  string          `json:"notificationType,omitempty"`
	IsInterrupt       bool            `json:"isInterrupt,omitempty"`
}

// claudePayload is the snake_case stdin document of Claude-format hooks:
// every member always present, tool names and inputs translated.
type claudePayload struct {
	HookEventName        Event           `json:"hook_event_name"`
	SessionID            string          `json:"session_id"`
	Cwd                  string          `json:"cwd"`
	ToolName             string          `json:"tool_name"`
	ToolInput            json.RawMessage `json:"tool_input"`
	ToolResponse         json.RawMessage `json:"tool_response"`
	Prompt               string          `json:"prompt"`
	LastAssistantMessage string          `json:"last_assistant_message"`
	Source               string          `json:"source"`
	Reason               string          `json:"reason"`
	NotificationType     string          `json:"notification_type"`
	Message              string          `json:"message"`
	Trigger              string          `json:"trigger"`
	Error                string          `json:"error"`
	IsInterrupt          bool            `json:"is_interrupt"`
}

// marshalPayload renders the stdin line (JSON + "\n") for one hook.
func marshalPayload(ev Event, p Payload, claude bool) []byte {
	args := p.ToolArgs
	if len(bytes.TrimSpace(args)) == 0 || !json.Valid(args) {
		args = nil
	}
	var v any
	if claude {
		cp := claudePayload{
			HookEventName: ev, SessionID: p.SessionID, Cwd: p.Cwd,
			Prompt: p.Prompt, LastAssistantMessage: p.LastAssistantText,
			Source: p.Source, Reason: p.Reason, NotificationType: p.NotificationType,
			Message: p.Message, Trigger: p.Trigger, Error: p.Error, IsInterrupt: p.IsInterrupt,
			ToolInput: json.RawMessage("null"),
		}
		if p.ToolName != "" {
			cp.ToolName = claudeToolNames(p.ToolName, args)[0]
			if args != nil {
				cp.ToolInput = claudeToolInput(p.ToolName, args, p.Cwd)
			}
		}
		cp.ToolResponse = claudeToolResponse(ev, cp.ToolName, p)
		v = cp
	} else {
		v = nativePayload{
			Event: ev, SessionID: p.SessionID, Cwd: p.Cwd, ToolName: p.ToolName,
			ToolArgs: args, Subject: p.Subject, ToolResult: p.ToolResult,
			Prompt: p.Prompt, LastAssistantText: p.LastAssistantText, Turn: p.Turn,
			Message: p.Message, Trigger: p.Trigger, Reasoning: p.Reasoning,
			Error: p.Error, Source: p.Source, Reason: p.Reason,
			NotificationType: p.NotificationType, IsInterrupt: p.IsInterrupt,
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		// Only invalid raw JSON can fail, and tool arguments were checked.
		panic("hookrun: payload: " + err.Error())
	}
	return append(b, '\n')
}

// claudeToolResponse is Bash's {stdout, stderr, interrupted} after a tool
// ran, else the result as JSON when it is JSON, else as a string.
func claudeToolResponse(ev Event, claudeName string, p Payload) json.RawMessage {
	if claudeName == "Bash" && (ev == PostToolUse || ev == PostToolUseFailure) {
		b, _ := json.Marshal(struct {
			Stdout      string `json:"stdout"`
			Stderr      string `json:"stderr"`
			Interrupted bool   `json:"interrupted"`
		}{p.ToolResult, p.Error, p.IsInterrupt})
		return b
	}
	if t := bytes.TrimSpace([]byte(p.ToolResult)); len(t) > 0 && json.Valid(t) {
		return t
	}
	b, _ := json.Marshal(p.ToolResult)
	return b
}
