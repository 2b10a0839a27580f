package agent

import (
	"encoding/json"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// UpdateKind names what an Update carries. Where the Agent Client
// Protocol has a session/update kind for it, the value is ACP's.
type UpdateKind string

// The update kinds.
const (
	// UpdateUserMessage is the user's text as the turn works on it (after
	// input.receive), once per turn.
	UpdateUserMessage UpdateKind = "user_message_chunk"
	// UpdateAgentMessage and UpdateAgentThought stream the model's answer
	// and reasoning as the provider sends them.
	UpdateAgentMessage UpdateKind = "agent_message_chunk"
	UpdateAgentThought UpdateKind = "agent_thought_chunk"
	// UpdateToolCall announces a tool call; UpdateToolCallUpdate reports
	// its progress and, finally, its output.
	UpdateToolCall       UpdateKind = "tool_call"
	UpdateToolCallUpdate UpdateKind = "tool_call_update"
	// UpdatePermissionRequest says the user is being asked about a tool
	// call; UpdatePermissionOutcome gives the final verdict whenever the
	// user was asked, an extension ruled, or the call may not run.
	UpdatePermissionRequest UpdateKind = "permission_request"
	UpdatePermissionOutcome UpdateKind = "permission_outcome"
	// UpdateUsage is one provider round's token accounting.
	UpdateUsage UpdateKind = "usage"
	// UpdateNotice is something the user should see that is not
	// conversation: a block, a plugin warning, an audit note, a
	// compaction, a replaced response.
	UpdateNotice UpdateKind = "notice"
	// UpdateTurnEnd is the last update of every turn.
	UpdateTurnEnd UpdateKind = "turn_end"
)

// Update is one thing a session shows. Exactly the member its Kind names
// is set (Text for the message kinds).
type Update struct {
	Kind UpdateKind `json:"sessionUpdate"`
	// Turn numbers the session's turns from 1.
	Turn       int                     `json:"turn"`
	Text       string                  `json:"text,omitempty"`
	ToolCall   *ToolCall               `json:"toolCall,omitempty"`
	Permission *Permission             `json:"permission,omitempty"`
	Usage      *extproto.ProviderUsage `json:"usage,omitempty"`
	Notice     *Notice                 `json:"notice,omitempty"`
	End        *TurnEnd                `json:"end,omitempty"`
	// Subagent is set on the updates of a subagent run (its messages,
	// tool calls, permissions and notices), shown within the parent's
	// turn.
	Subagent *SubagentRef `json:"subagent,omitempty"`
	// Images describe the images of a user message (never their bytes,
	// which only the model history keeps).
	Images []ImageInfo `json:"images,omitempty"`
}

// ToolStatus is a tool call's state, as ACP names them.
type ToolStatus string

// The tool call states.
const (
	ToolPending    ToolStatus = "pending"
	ToolInProgress ToolStatus = "in_progress"
	ToolCompleted  ToolStatus = "completed"
	ToolFailed     ToolStatus = "failed"
)

// ToolCall is a tool call as shown: every update repeats the whole state.
type ToolCall struct {
	// ID is the model's id for the call, which the model history keeps;
	// providers may reuse it (call-1 every round). Key names the call
	// uniquely within the session (tc1, tc2, ...): updates and permission
	// prompts go by it, and a loaded session shows the same keys.
	ID   string `json:"toolCallId"`
	Key  string `json:"key,omitempty"`
	Name string `json:"name"`
	// Title is for people, e.g. "Read main.go".
	Title  string     `json:"title,omitempty"`
	Kind   tools.Kind `json:"kind,omitempty"`
	Status ToolStatus `json:"status"`
	// Arguments is the JSON argument object as the tool receives it,
	// redacted when an extension wrote it (tool.before).
	Arguments string   `json:"rawInput,omitempty"`
	Output    string   `json:"rawOutput,omitempty"`
	Locations []string `json:"locations,omitempty"`
	// ServedBy names the plugin that owns tool:<name> and served the call
	// instead of the built-in.
	ServedBy string `json:"servedBy,omitempty"`
}

// Permission is a permission prompt or verdict for one tool call.
type Permission struct {
	// ToolCallID and ToolCallKey are the call's ToolCall.ID and Key.
	ToolCallID  string `json:"toolCallId"`
	ToolCallKey string `json:"toolCallKey,omitempty"`
	Tool        string `json:"tool"`
	// Outcome is empty while the user is being asked.
	Outcome PermissionOutcome `json:"outcome,omitempty"`
	// DecidedBy says who settled the verdict; Plugin names the extension
	// and Mode the approval mode when they did.
	DecidedBy Decider `json:"decidedBy,omitempty"`
	Plugin    string  `json:"plugin,omitempty"`
	Mode      string  `json:"mode,omitempty"`
}

// Decider is who settled a permission verdict.
type Decider string

// The deciders.
const (
	// DecidedByUser: the user answered the prompt.
	DecidedByUser Decider = "user"
	// DecidedByHost: the approval mode (Permission.Mode) allowed the call
	// without asking.
	DecidedByHost Decider = "host"
	// DecidedByExtension: a plugin (Permission.Plugin) ruled at
	// permission.decision; its verdict is final.
	DecidedByExtension Decider = "extension"
	// DecidedByHook: a PermissionRequest hook allowed or denied the call
	// before the user was asked.
	DecidedByHook Decider = "hook"
)

// UnmarshalJSON reads a stored Permission. Transcripts written before
// the decider became fields hold one phrase ("extension <id>", "approval
// mode <mode>..."); it is split into the fields once, here, so nothing
// downstream reads prose.
func (p *Permission) UnmarshalJSON(data []byte) error {
	type plain Permission
	if err := json.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	switch by := string(p.DecidedBy); {
	case strings.HasPrefix(by, "extension ") && p.Plugin == "":
		p.DecidedBy, p.Plugin = DecidedByExtension, strings.TrimPrefix(by, "extension ")
	case strings.HasPrefix(by, "approval mode ") && p.Mode == "":
		p.DecidedBy, p.Mode = DecidedByHost, strings.TrimPrefix(by, "approval mode ")
		p.Mode, _, _ = strings.Cut(p.Mode, " ")
	}
	return nil
}

// By says who decided, for people: "user", "extension <id>", "approval
// mode yolo".
func (p Permission) By() string {
	switch p.DecidedBy {
	case DecidedByExtension:
		return "extension " + p.Plugin
	case DecidedByHook:
		return "a PermissionRequest hook"
	case DecidedByHost:
		return "approval mode " + p.Mode
	}
	return string(p.DecidedBy)
}

// NoticeKind classifies a notice.
type NoticeKind string

// The notice kinds.
const (
	NoticeBlocked     NoticeKind = "blocked"
	NoticeWarning     NoticeKind = "warning"
	NoticeAudit       NoticeKind = "audit"
	NoticeCompaction  NoticeKind = "compaction"
	NoticeReplaced    NoticeKind = "replaced"
	NoticeInterrupted NoticeKind = "interrupted"
	NoticeTranscript  NoticeKind = "transcript"
	// NoticeMode: the session's mode changed on its own (a plan the user
	// approved left plan mode).
	NoticeMode NoticeKind = "mode"
	// NoticeMCP is about an MCP server: it failed, stopped, or its tools
	// changed (Notice.Plugin names the server).
	NoticeMCP NoticeKind = "mcp"
	// NoticeSubagent says a subagent run started or finished.
	NoticeSubagent NoticeKind = "subagent"
)

// Notice is a message about the session rather than in it. Text that
// came from a sidecar is redacted.
type Notice struct {
	Kind   NoticeKind         `json:"kind"`
	Point  extproto.HookPoint `json:"point,omitempty"`
	Plugin string             `json:"plugin,omitempty"`
	Text   string             `json:"text"`
}

// StopReason is why a turn ended, as ACP names them.
type StopReason string

// The stop reasons.
const (
	StopEndTurn         StopReason = "end_turn"
	StopMaxTokens       StopReason = "max_tokens"
	StopMaxTurnRequests StopReason = "max_turn_requests"
	// StopRefusal: the model refused, or a plugin blocked the turn.
	StopRefusal   StopReason = "refusal"
	StopCancelled StopReason = "cancelled"
)

// TurnEnd closes a turn.
type TurnEnd struct {
	// Stop is empty when the turn failed (Error) or was interrupted.
	Stop StopReason `json:"stopReason,omitempty"`
	// Error is the failure, redacted.
	Error string `json:"error,omitempty"`
	// Interrupted marks a turn the process did not live to finish; Load
	// adds it.
	Interrupted bool `json:"interrupted,omitempty"`
	// Usage sums the provider-reported usage of the turn's rounds.
	Usage extproto.ProviderUsage `json:"usage"`
}

// Result is what Prompt returns for a turn that did not fail.
type Result struct {
	Stop  StopReason
	Usage extproto.ProviderUsage
	// Block is set when a plugin's block ended the turn.
	Block *Block
	// Turn is the turn's number in the session (Update.Turn); Edits are
	// the files its edits landed in, in order of first change (none when
	// it changed no file), which Session.UndoTurn can take back. Both are
	// set whenever the turn ran, also when Prompt returns an error.
	Turn  int
	Edits []TurnEdit
}

// Block is a plugin's block that ended a turn.
type Block struct {
	Point  extproto.HookPoint
	Plugin string
	// Reason is redacted.
	Reason string
}

// merge reports whether u is a chunk that continues prev, so the
// transcript stores the two as one.
func (u *Update) merge(prev *Update) bool {
	switch u.Kind {
	case UpdateUserMessage, UpdateAgentMessage, UpdateAgentThought:
		return prev != nil && prev.Kind == u.Kind && prev.Turn == u.Turn && subagentID(prev) == subagentID(u)
	}
	return false
}

func subagentID(u *Update) string {
	if u.Subagent == nil {
		return ""
	}
	return u.Subagent.ID
}

func addUsage(sum *extproto.ProviderUsage, u *extproto.ProviderUsage) {
	if u == nil {
		return
	}
	sum.PromptTokens += u.PromptTokens
	sum.CompletionTokens += u.CompletionTokens
	sum.TotalTokens += u.TotalTokens
	sum.CacheHitTokens += u.CacheHitTokens
	sum.CacheMissTokens += u.CacheMissTokens
	sum.ReasoningTokens += u.ReasoningTokens
	if u.FinishReason != "" {
		sum.FinishReason = u.FinishReason
	}
}
