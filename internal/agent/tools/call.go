package tools

import (
	"context"
	"errors"
)

// Call is the tool call a tool runs for, as the agent puts it in the
// context of Run, so that an editor's Documents.ApplyEdit can tell which
// session's turn an edit belongs to and whether the user reviews it.
type Call struct {
	SessionID string
	// Key is the call's key, unique within the session.
	Key string
	// Title is the call as shown to people ("Edit main.go").
	Title string
	// Review is set when the approval mode would have asked the user
	// about the call and the editor shows edits for review instead
	// (agent.EditReviewer): the edit's review is the permission question,
	// and ApplyEdit returns ErrEditRejected when the user rejects it.
	Review bool
}

type callKey struct{}

// WithCall returns ctx carrying c.
func WithCall(ctx context.Context, c Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

// CallOf returns the call ctx carries.
func CallOf(ctx context.Context) (Call, bool) {
	c, ok := ctx.Value(callKey{}).(Call)
	return c, ok
}

// ErrEditRejected is what Documents.ApplyEdit returns (wrapped) when the
// user rejected a reviewed edit as a whole.
var ErrEditRejected = errors.New("the user rejected the edit")

// EditsOnly reports whether every change tool makes goes through
// Documents.ApplyEdit (apply_edit), so that an editor's review of the
// edit can stand in for the permission question.
func EditsOnly(tool Tool) bool {
	t, ok := tool.(interface{ EditsOnly() bool })
	return ok && t.EditsOnly()
}
