package agent

import (
	"fmt"
	"slices"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// Mode is a session's collaboration mode: what its tool calls may do.
type Mode string

// The modes.
const (
	// ModeNormal runs every tool the approval mode allows.
	ModeNormal Mode = "normal"
	// ModePlan lets the model read, search and plan (the read-only
	// tools, todo_write among them); a call of any other tool — one that
	// may change files or run commands — is refused with a tool error
	// naming plan mode, until the mode returns to normal.
	ModePlan Mode = "plan"
)

// storedSettings are a session's own settings as its transcript stores
// them, in every model record (see recModel) after the model. Empty
// members are the defaults: the model's own effort, Settings.Approval,
// normal mode. Transcripts written before these were stored have none;
// readers that know only the model ignore them, so either kind of
// transcript loads in either version.
type storedSettings struct {
	Effort   string   `json:"effort,omitempty"`
	Approval Approval `json:"approval,omitempty"`
	Mode     Mode     `json:"mode,omitempty"`
}

// SetMode sets the session's mode, from its next tool call on (a running
// turn's calls included).
func (s *Session) SetMode(m Mode) error {
	switch m {
	case ModeNormal, ModePlan:
	default:
		return fmt.Errorf("unknown mode %q (normal or plan)", m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrSessionClosed
	}
	if m == ModeNormal {
		m = ""
	}
	s.mode = m
	return s.storeLocked()
}

// Mode is the session's mode.
func (s *Session) Mode() Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mode == "" {
		return ModeNormal
	}
	return s.mode
}

// storeLocked records the session's settings: now when it is idle,
// when the running turn ends otherwise (as a model change is). The
// caller holds s.mu.
func (s *Session) storeLocked() error {
	if s.running {
		s.unstored = true
		return nil
	}
	s.jmu.Lock()
	model := s.st.model
	s.jmu.Unlock()
	return s.commitSettings(model)
}

// commitSettings records the model ref and the session's other settings;
// the caller holds s.mu with no turn running.
func (s *Session) commitSettings(ref string) error {
	if err := s.waitSyncLocked(); err != nil {
		return err
	}
	s.unstored = false
	s.j.commit(&record{Type: recModel, Model: ref, Settings: &storedSettings{Effort: s.effort, Approval: s.approval, Mode: s.mode}})
	if err := s.j.failure(); err != nil {
		return err
	}
	return s.log.Sync()
}

// planRefusal is the tool error of a call plan mode refuses ("" when
// the call may run): in plan mode only the read-only tools run.
func (s *Session) planRefusal(name string, tool tools.Tool) string {
	if s.Mode() != ModePlan || tool.ReadOnly() {
		return ""
	}
	return fmt.Sprintf("plan mode: %s is refused because it may change files or run commands; "+
		"while the session is in plan mode only tools that read or search run (and todo_write records the plan) — "+
		"present the plan with exit_plan_mode: once the user approves it the session leaves plan mode and you carry it out", name)
}

// restore takes a loaded session's stored settings. A model the catalog
// no longer has falls back to the default model, an effort the model
// does not declare to the model's own, an approval or mode this version
// does not know to the default; each fallback is a warning notice and
// is stored.
func (a *Agent) restore(s *Session) {
	st := s.st.settings
	model, changed := s.st.model, false
	warn := func(text string) {
		changed = true
		s.j.emit(Update{Kind: UpdateNotice, Turn: s.st.turns, Notice: &Notice{Kind: NoticeWarning, Text: text}})
	}
	if err := a.checkModel(model); err != nil {
		if def, derr := a.defaultModel(s.ws()); derr == nil && def != model && a.checkModel(def) == nil {
			warn(locale.T("the session's model %s is no longer available (%s); it continues on the default model %s", model, redactErr(err), def))
			model = def
		}
	}
	if st.Effort != "" {
		p, release := a.opts.Runtime.Acquire()
		m, err := p.Models().Lookup(model)
		release()
		if err == nil && !slices.Contains(m.Descriptor.Efforts, st.Effort) {
			warn(locale.T("the session's effort %s is not one model %s takes; it continues on the model's own effort", st.Effort, model))
			st.Effort = ""
		}
	}
	switch st.Approval {
	case "", ApproveAsk, ApproveAuto, ApproveYolo:
	default:
		warn(locale.T("the session's stored tool approval %q is unknown; it continues on %s", st.Approval, a.opts.Settings.Approval))
		st.Approval = ""
	}
	switch st.Mode {
	case "", ModePlan:
	case ModeNormal:
		st.Mode = ""
	default:
		warn(locale.T("the session's stored mode %q is unknown; it continues in normal mode", st.Mode))
		st.Mode = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.effort, s.approval, s.mode = st.Effort, st.Approval, st.Mode
	if changed {
		// Stored like any change; a failure fails the load (Load checks
		// the journal).
		_ = s.commitSettings(model)
	}
}
