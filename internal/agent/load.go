package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// interruptedReason answers the calls of a turn the process died in.
const interruptedReason = "not run: the process ended during this turn"

// Load reopens a stored session and replays it: every stored update goes
// to OnUpdate in order (streamed chunks as the merged runs the transcript
// keeps) before Load returns, and the history, model, turn count, usage
// and own settings (effort, approval, mode) are exactly what the session
// had — but a stored model the catalog no longer has falls back to the
// default model, and an effort the model does not take to the model's
// own, each with a warning notice. session.load runs first: a
// block refuses the load, a failure is only a warning. A turn the
// process did not live to finish is marked interrupted (its open tool
// calls answered, a turn_end added) and nothing before it is lost; a
// torn last line is dropped and reported as a notice.
func (a *Agent) Load(ctx context.Context, id string) (*Session, error) {
	return a.load(ctx, id, true)
}

// Resume reopens a stored session as Load does, but without showing its
// stored updates: OnUpdate gets only what the load itself says (the
// notices of a torn line, an interrupted turn, a setting that fell back).
func (a *Agent) Resume(ctx context.Context, id string) (*Session, error) {
	return a.load(ctx, id, false)
}

func (a *Agent) load(ctx context.Context, id string, show bool) (*Session, error) {
	if err := a.settle(ctx, id); err != nil {
		return nil, err
	}
	if _, open := a.Session(id); open {
		return nil, fmt.Errorf("%w: %s", ErrSessionOpen, id)
	}
	if !transcript.Exists(a.dir, id) {
		return nil, fmt.Errorf("%w: %s", ErrNoSession, id)
	}
	log, raws, torn, err := transcript.Open(a.dir, id)
	if err != nil {
		return nil, err
	}
	s, updates, err := a.replay(id, log, raws)
	if err != nil {
		_ = log.Close()
		return nil, err
	}
	out, err := a.sessionHook(ctx, id, &extproto.SessionLoadPayload{Phase: extproto.PhaseLoad, SessionPath: log.Path()})
	if err == nil && out.Blocked {
		_ = log.Close()
		return nil, fmt.Errorf("extension %s refused to load the session: %s", out.BlockedBy, out.Reason)
	}
	if f := a.opts.OnUpdate; f != nil && show {
		for _, u := range updates {
			f(id, u)
		}
	}
	s.warn(out)
	if err != nil {
		s.j.emit(Update{Kind: UpdateNotice, Turn: s.st.turns, Notice: &Notice{Kind: NoticeWarning, Point: extproto.SessionLoad, Text: redactErr(err)}})
	}
	if torn != nil {
		s.j.emit(Update{Kind: UpdateNotice, Turn: s.st.turns, Notice: &Notice{Kind: NoticeTranscript, Text: locale.T("%s: the last %d bytes (from offset %d) are an incomplete record, left from a crash; they are dropped", torn.Path, torn.Bytes, torn.Offset)}})
	}
	if s.st.open {
		t := &turn{s: s, n: s.st.turns, tools: a.opts.Tools, openReason: interruptedReason}
		t.answerOpen(nil)
		t.notice(NoticeInterrupted, "", "", locale.T("turn %d was interrupted: the process ended before it finished", t.n))
		t.emit(Update{Kind: UpdateTurnEnd, End: &TurnEnd{Interrupted: true, Error: "interrupted: the process ended during this turn"}})
	}
	a.restore(s)
	a.sessionStartHooks(ctx, s)
	s.j.flush()
	err = errors.Join(s.j.failure(), log.Sync())
	if err == nil {
		err = a.register(s)
	}
	if err != nil {
		_ = log.Close()
		return nil, err
	}
	return s, nil
}

// replay folds a transcript's records into a session and returns the
// updates to show.
func (a *Agent) replay(id string, log *transcript.Log, raws []json.RawMessage) (*Session, []Update, error) {
	var st state
	var updates []Update
	for i, raw := range raws {
		r, err := decodeRecord(raw)
		if err == nil && i == 0 && r.Type != recSession {
			err = errors.New("the first record is not the session header")
		}
		if err == nil {
			err = st.apply(r)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("session %s, record %d: %w", id, i+1, err)
		}
		if r.Type == recUpdate {
			updates = append(updates, *r.Update)
		}
	}
	if len(raws) == 0 {
		return nil, nil, fmt.Errorf("session %s has no records", id)
	}
	ws, err := tools.NewWorkspace(st.header.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("session %s: %w", id, err)
	}
	s := newSession(a, id, ws, log)
	s.st = st
	return s, updates, nil
}
