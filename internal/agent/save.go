package agent

import (
	"context"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// save ends a turn's bookkeeping: every record is written, the transcript
// is made durable, session.save reports the saved session, and the
// transcript rotates if it grew past its bound. Only the session_policy
// owner rules on session.save and session.rotate (the plugins that list
// them observe them as events): its failure fails the turn (SPEC: fatal
// there); its block at session.save is shown (the save already happened
// and is never undone), at session.rotate it skips this rotation.
//
// When no plugin rules on session.save and no rotation is due, the fsync
// runs in the background instead: the records are already written, so
// they survive the process dying and observers can read them; the fsync,
// which makes them survive the machine dying, is issued now and only
// waited for by the next turn, SetModel or Close, whichever comes first
// (its failure fails that call). The answer thus reaches the user a disk
// flush earlier.
func (t *turn) save(ctx context.Context) error {
	s := t.s
	s.j.flush()
	s.j.checkpoint()
	if err := s.j.failure(); err != nil {
		return err
	}
	rotate := s.log.Size() >= s.a.opts.MaxTranscriptBytes
	if !rotate && !t.g.Rules(extproto.SessionSave) {
		s.syncInBackground()
		if t.g.Observed(extproto.SessionSave) {
			for _, w := range t.g.Event(extproto.SessionSave, &extproto.SessionSavePayload{Phase: extproto.PhaseSave, SessionPath: s.log.Path()}) {
				t.notice(NoticeWarning, extproto.SessionSave, "", w)
			}
		}
		return nil
	}
	if err := s.log.Sync(); err != nil {
		return fmt.Errorf("transcript %s: %w", s.log.Path(), err)
	}
	out, err := t.intercept(ctx, &extproto.SessionSavePayload{Phase: extproto.PhaseSave, SessionPath: s.log.Path()})
	t.notes(extproto.SessionSave, out)
	if err != nil {
		return err
	}
	if out.Blocked {
		t.notice(NoticeBlocked, extproto.SessionSave, out.BlockedBy, locale.T("extension %s blocked session.save: %s (the transcript is already saved)", out.BlockedBy, out.Reason))
	}
	if !rotate {
		return s.j.failure()
	}
	out, err = t.intercept(ctx, &extproto.SessionRotatePayload{Phase: extproto.PhaseRotate, SessionPath: s.log.Path()})
	t.notes(extproto.SessionRotate, out)
	if err != nil {
		return err
	}
	if out.Blocked {
		t.notice(NoticeBlocked, extproto.SessionRotate, out.BlockedBy, locale.T("extension %s blocked session.rotate: %s; the transcript is not rotated this time", out.BlockedBy, out.Reason))
		return s.j.failure()
	}
	s.j.flush()
	archived, err := s.log.Rotate()
	if err != nil {
		return fmt.Errorf("rotate transcript %s: %w", s.log.Path(), err)
	}
	t.notice(NoticeTranscript, extproto.SessionRotate, "", locale.T("transcript rotated; older records are in %s", archived))
	s.j.flush()
	return s.j.failure()
}
