package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// journal is where a session's records go: folded into its state and
// appended to its transcript, with updates also shown as they happen.
// Streamed chunks are shown one by one but stored merged, one record per
// run of chunks, so the transcript stays small and a reload shows the
// same conversation. The session's mutex guards it.
type journal struct {
	s *Session
	// pending is the run of chunks not yet stored; its text collects in
	// text, since a long answer arrives as thousands of chunks.
	pending *Update
	text    strings.Builder
	// err is the first transcript write failure; the turn fails with it.
	err error
	// gen, while a turn runs, receives frontend.event observations.
	gen Pinned
}

// emit shows u and stores it (merged with the chunks before it). Emits
// are serialised, so a notice from another goroutine (Agent.MCPNotice)
// reaches OnUpdate and the transcript in one order.
func (j *journal) emit(u Update) {
	j.s.emu.Lock()
	defer j.s.emu.Unlock()
	if f := j.s.a.opts.OnUpdate; f != nil {
		f(j.s.id, u)
	}
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	if u.merge(j.pending) {
		j.text.WriteString(u.Text)
		return
	}
	j.flushLocked()
	switch u.Kind {
	case UpdateUserMessage, UpdateAgentMessage, UpdateAgentThought:
		c := u
		j.pending = &c
		j.text.WriteString(u.Text)
	default:
		// Copied here, not above, so the chunks of a stream, which are
		// only merged, cost no allocation.
		c := u
		j.store(&record{Type: recUpdate, Update: &c})
	}
}

// flush stores the pending run of chunks.
func (j *journal) flush() {
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	j.flushLocked()
}

func (j *journal) flushLocked() {
	if p := j.pending; p != nil {
		p.Text = j.text.String()
		j.pending = nil
		j.text.Reset()
		j.store(&record{Type: recUpdate, Update: p})
	}
}

// commit stores a non-update record after any pending chunks, keeping
// the transcript in the order things happened.
func (j *journal) commit(r *record) {
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	j.flushLocked()
	j.store(r)
}

// checkpoint writes the stored records out before the turn waits on
// something outside the process (a stream, a tool, the editor, a
// sidecar), so a crash while it waits loses nothing stored before. Chunks
// of a run still being streamed stay pending: a crash mid-answer loses
// the part of that answer not yet stored, and the turn is interrupted.
func (j *journal) checkpoint() {
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	if err := j.s.log.Flush(); err != nil && j.err == nil {
		j.err = fmt.Errorf("transcript %s: %w", j.s.log.Path(), err)
	}
}

// callKey is the key for a call with id (ToolCall.ID): a new one when
// fresh, else the key of the turn's latest call with that id (a new one
// when there was none). A new key is taken once an update carries it.
func (j *journal) callKey(id string, fresh bool) string {
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	if k, ok := j.s.st.keys[id]; ok && !fresh {
		return k
	}
	return callKey(j.s.st.calls + 1)
}

// failure returns the first transcript failure.
func (j *journal) failure() error {
	j.s.jmu.Lock()
	defer j.s.jmu.Unlock()
	return j.err
}

func (j *journal) store(r *record) {
	if err := j.s.st.apply(r); err != nil && j.err == nil {
		j.err = err
	}
	if err := j.s.log.Buffer(r); err != nil && j.err == nil {
		j.err = fmt.Errorf("transcript %s: %w", j.s.log.Path(), err)
	}
	if r.Type == recUpdate {
		j.observe(r.Update)
	}
}

// observe sends a stored update to the frontend.event observers of the
// turn's generation: once per stored update, so a streamed answer is one
// event, not one per chunk. It never waits for an observer.
func (j *journal) observe(u *Update) {
	g := j.gen
	if g == nil || !g.Observed(extproto.FrontendEvent) {
		return
	}
	detail, _ := json.Marshal(u)
	p := &extproto.FrontendEventPayload{Kind: string(u.Kind), Text: updateText(u), Detail: string(detail)}
	for _, w := range g.Event(extproto.FrontendEvent, p) {
		j.s.a.opts.Logger.Warn(w)
	}
}

// updateText is the one-line text of an update for frontend.event.
func updateText(u *Update) string {
	switch {
	case u.ToolCall != nil:
		return u.ToolCall.Title
	case u.Notice != nil:
		return u.Notice.Text
	case u.Permission != nil:
		return string(u.Permission.Outcome)
	case u.End != nil:
		if u.End.Error != "" {
			return u.End.Error
		}
		return string(u.End.Stop)
	}
	return u.Text
}
