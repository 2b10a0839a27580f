package agent

import (
	"context"
	"fmt"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// save ends a turn's bookkeeping: the transcript is made durable, then
// session.save observes the saved session, then the transcript rotates
// if it grew past its bound. At session.save and session.rotate a plugin
// failure fails the turn (SPEC: fatal there); a block at session.save is
// shown (the save already happened and is never undone), a block at
// session.rotate skips this rotation.
func (t *turn) save(ctx context.Context) error {
	s := t.s
	s.j.flush()
	if err := s.j.failure(); err != nil {
		return err
	}
	if err := s.log.Sync(); err != nil {
		return fmt.Errorf("transcript %s: %w", s.log.Path(), err)
	}
	out, err := t.g.Intercept(ctx, protocol.SessionSave, &protocol.SessionSavePayload{Phase: protocol.PhaseSave, SessionPath: s.log.Path()})
	t.notes(protocol.SessionSave, out)
	if err != nil {
		return err
	}
	if out.Blocked {
		t.notice(NoticeBlocked, protocol.SessionSave, out.BlockedBy, "extension "+out.BlockedBy+" blocked session.save: "+out.Reason+" (the transcript is already saved)")
	}
	if s.log.Size() < s.a.opts.MaxTranscriptBytes {
		return s.j.failure()
	}
	out, err = t.g.Intercept(ctx, protocol.SessionRotate, &protocol.SessionRotatePayload{Phase: protocol.PhaseRotate, SessionPath: s.log.Path()})
	t.notes(protocol.SessionRotate, out)
	if err != nil {
		return err
	}
	if out.Blocked {
		t.notice(NoticeBlocked, protocol.SessionRotate, out.BlockedBy, "extension "+out.BlockedBy+" blocked session.rotate: "+out.Reason+"; the transcript is not rotated this time")
		return s.j.failure()
	}
	s.j.flush()
	archived, err := s.log.Rotate()
	if err != nil {
		return fmt.Errorf("rotate transcript %s: %w", s.log.Path(), err)
	}
	t.notice(NoticeTranscript, protocol.SessionRotate, "", "transcript rotated; older records are in "+archived)
	s.j.flush()
	return s.j.failure()
}
