package agent

import (
	"context"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
)

// Editor is what a session needs from the editor it runs in. The bridge
// implements it over LSP (documents from textDocument sync, edits as
// workspace/applyEdit, permission as an rx/ request); the terminal chat
// implements it on the disk and stdin.
type Editor interface {
	// Document and ApplyEdit give the tools the editor's buffers: reads
	// prefer an open document over the disk, and edits land in buffers
	// with undo.
	tools.Documents
	// RequestPermission asks the user whether a tool call may run. It
	// returns PermissionCancelled when the prompt was withdrawn because
	// the turn is being cancelled; an error fails the turn.
	RequestPermission(ctx context.Context, req PermissionRequest) (PermissionOutcome, error)
}

// Terminal is what an Editor may also implement to run the sessions'
// run_command calls in its own terminal (an ACP client offering
// terminal/*); every call then goes to it, after the permission rules and
// hooks, and one it cannot start runs locally. Editors that do not
// implement it (the LSP bridge, the terminal chat) run commands locally.
type Terminal = tools.Terminal

// EditReviewer is implemented by an Editor that can show an edit to the
// user for review before it lands. When ReviewsEdits is true, a call of
// an edit-only tool (tools.EditsOnly) that the approval mode would ask
// about is not asked: after permission hooks and permission.decision (a
// plugin's ruling still decides without a review) it runs with
// tools.Call.Review set, and the editor's review of the edit is the
// question; a rejected edit fails the call with tools.ErrEditRejected.
type EditReviewer interface {
	ReviewsEdits() bool
}

// PermissionRequest is one question to the user about a tool call.
type PermissionRequest struct {
	SessionID string
	ToolCall  ToolCall
	// Args are the arguments exactly as the tool gets them if allowed
	// (ToolCall.Arguments is what is shown, which a plugin's change at
	// tool.before shows redacted); a grant the editor keeps for the
	// session must match these.
	Args string
	// ReadOnly reports whether the tool only reads.
	ReadOnly bool
	// Grant is the label of what answering PermissionAllowSession
	// allows for the rest of the session, as the user should see it
	// (redacted): "Allow `rm -rf build` in sub/ for this session",
	// "Allow edits to notes.txt for this session", "Allow
	// mcp__fs__write_file for this session". Empty when no grant is
	// offered (a run_command or an edit whose arguments do not say what
	// it would run or change): the editor offers allow and deny only.
	Grant string
	// Command is, for a run_command call whose arguments decode and
	// whose cwd the tool would take, the argv and the absolute directory
	// it would run in; nil otherwise.
	Command *Command
}

// PermissionOutcome is the answer to a permission question.
type PermissionOutcome string

// The permission outcomes.
const (
	PermissionAllow     PermissionOutcome = "allow"
	PermissionDeny      PermissionOutcome = "deny"
	PermissionCancelled PermissionOutcome = "cancelled"
	// PermissionAllowSession allows the call and keeps the grant
	// PermissionRequest.Grant names for the rest of the session: the
	// session does not ask about what it covers again. Answered when no
	// grant was offered, it allows the call only.
	PermissionAllowSession PermissionOutcome = "allow_session"
)

// The edit types of agent/tools, so an Editor implementation needs only
// this package.
type (
	FileEdit = tools.FileEdit
	TextEdit = tools.TextEdit
	Range    = tools.Range
	Position = tools.Position
)
