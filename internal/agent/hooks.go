package agent

import (
	"context"
	"errors"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// errEnded travels up the pipeline when the turn ends early without
// failing: a block, a cancel, a refusal. turn.stop says how.
var errEnded = errors.New("turn ended")

// hook runs point on the turn's generation and applies what every point
// has in common: plugin warnings and audit notes become notices, a block
// ends the turn with its (already redacted) reason shown, and a failure
// fails the turn (its message names the plugin). A cancelled turn ends
// as cancelled.
func (t *turn) hook(ctx context.Context, p extproto.Payload) (exthost.Outcome, error) {
	out, err := t.intercept(ctx, p)
	t.notes(p.Point(), out)
	if err != nil {
		return out, t.fail(ctx, err)
	}
	if out.Blocked {
		return out, t.blocked(out)
	}
	return out, nil
}

// intercept is the generation's Intercept, after a checkpoint when a
// sidecar may be asked (with none, the call returns at once).
func (t *turn) intercept(ctx context.Context, p extproto.Payload) (exthost.Outcome, error) {
	if !t.g.Empty() {
		t.s.j.checkpoint()
	}
	return t.g.Intercept(ctx, p.Point(), p)
}

// notes shows an outcome's warnings and audit records.
func (t *turn) notes(point extproto.HookPoint, out exthost.Outcome) {
	for _, w := range out.Warnings {
		t.notice(NoticeWarning, point, "", w)
	}
	for _, a := range out.Audit {
		t.notice(NoticeAudit, point, "", a)
	}
}

// blocked ends the turn for a plugin's block.
func (t *turn) blocked(out exthost.Outcome) error {
	t.block = &Block{Point: out.Point, Plugin: out.BlockedBy, Reason: out.Reason}
	text := locale.T("extension %s blocked %s", out.BlockedBy, out.Point)
	if out.Reason != "" {
		text = locale.T("extension %s blocked %s: %s", out.BlockedBy, out.Point, out.Reason)
	}
	t.notice(NoticeBlocked, out.Point, out.BlockedBy, text)
	t.stop = StopRefusal
	return errEnded
}

// fail turns an error into the turn's end: cancelled when the turn's
// context is done, else a failure.
func (t *turn) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		t.stop = StopCancelled
		return errEnded
	}
	return err
}

func (t *turn) notice(kind NoticeKind, point extproto.HookPoint, plugin, text string) {
	t.emit(Update{Kind: UpdateNotice, Notice: &Notice{Kind: kind, Point: point, Plugin: plugin, Text: text}})
}

// ownerServed returns the tool:<name> owner whose replace at tool.before
// took the call over, or "".
func ownerServed(out exthost.Outcome) string {
	for _, r := range out.Rulings {
		if r.Owner && r.Decision == extproto.DecisionReplace {
			return r.Plugin
		}
	}
	return ""
}

// ownerReplaced reports whether the slot owner answered replace.
func ownerReplaced(out exthost.Outcome, plugin string) bool {
	for _, r := range out.Rulings {
		if r.Owner && r.Plugin == plugin && r.Decision == extproto.DecisionReplace {
			return true
		}
	}
	return false
}

// verdictBy names who settled a permission verdict: the last plugin that
// ruled allow or deny, or whose permission-slot replacement set it.
func verdictBy(out exthost.Outcome) string {
	by := ""
	for _, r := range out.Rulings {
		switch {
		case r.Decision == extproto.DecisionAllow || r.Decision == extproto.DecisionDeny:
			by = r.Plugin
		case r.Owner && r.Decision == extproto.DecisionReplace:
			by = r.Plugin
		}
	}
	return by
}
