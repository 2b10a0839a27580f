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

	// The members only Claude-format hooks are told (Claude Code's
	// common and per-event input fields).

	// TranscriptPath is the session's JSONL transcript.
	TranscriptPath string
	// PermissionMode is Claude Code's name of the session's mode:
	// "default", "plan", "acceptEdits" or "bypassPermissions".
	PermissionMode string
	// ToolUseID is the model's id for the tool call (tool events).
	ToolUseID string
	// StopHookActive is set (Stop, SubagentStop) when a Stop hook already
	// made this turn continue: hooks read it to avoid looping.
	StopHookActive bool
	// CustomInstructions are what the user asked a manual compaction to
	// keep (PreCompact).
	CustomInstructions string
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

// claudeFields are the members of each event's Claude-format input
// beside the common ones (session_id, transcript_path, cwd,
// permission_mode, hook_event_name): each event gets its own, as Claude
// Code sends them, and no other event's.
var claudeFields = map[Event][]string{
	PreToolUse:         {"tool_name", "tool_input", "tool_use_id"},
	PostToolUse:        {"tool_name", "tool_input", "tool_use_id", "tool_response"},
	PostToolUseFailure: {"tool_name", "tool_input", "tool_use_id", "error", "is_interrupt"},
	PermissionRequest:  {"tool_name", "tool_input"},
	UserPromptSubmit:   {"prompt"},
	Stop:               {"stop_hook_active", "last_assistant_message"},
	StopFailure:        {"last_assistant_message", "error", "is_interrupt"},
	SubagentStop:       {"stop_hook_active", "last_assistant_message"},
	SessionStart:       {"source"},
	SessionEnd:         {"reason"},
	Notification:       {"message", "notification_type"},
	PreCompact:         {"trigger", "custom_instructions"},
}

// claudePayload is the snake_case stdin document of Claude-format hooks:
// the common members, then the event's own, tool names and inputs
// translated.
func claudePayload(ev Event, p Payload, args json.RawMessage) map[string]any {
	v := map[string]any{
		"hook_event_name": ev, "session_id": p.SessionID, "cwd": p.Cwd,
		"transcript_path": p.TranscriptPath, "permission_mode": p.PermissionMode,
	}
	if v["permission_mode"] == "" {
		v["permission_mode"] = "default"
	}
	toolName, toolInput := "", json.RawMessage("null")
	if p.ToolName != "" {
		toolName = claudeToolNames(p.ToolName, args)[0]
		if args != nil {
			toolInput = claudeToolInput(p.ToolName, args, p.Cwd)
		}
	}
	for _, f := range claudeFields[ev] {
		switch f {
		case "tool_name":
			v[f] = toolName
		case "tool_input":
			v[f] = toolInput
		case "tool_use_id":
			v[f] = p.ToolUseID
		case "tool_response":
			v[f] = claudeToolResponse(ev, toolName, p)
		case "error":
			v[f] = p.Error
		case "is_interrupt":
			v[f] = p.IsInterrupt
		case "prompt":
			v[f] = p.Prompt
		case "stop_hook_active":
			v[f] = p.StopHookActive
		case "last_assistant_message":
			v[f] = p.LastAssistantText
		case "source":
			v[f] = p.Source
		case "reason":
			v[f] = p.Reason
		case "message":
			v[f] = p.Message
		case "notification_type":
			v[f] = p.NotificationType
		case "trigger":
			v[f] = p.Trigger
		case "custom_instructions":
			v[f] = p.CustomInstructions
		}
	}
	return v
}

// marshalPayload renders the stdin line (JSON + "\n") for one hook.
func marshalPayload(ev Event, p Payload, claude bool) []byte {
	args := p.ToolArgs
	if len(bytes.TrimSpace(args)) == 0 || !json.Valid(args) {
		args = nil
	}
	var v any
	if claude {
		v = claudePayload(ev, p, args)
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
