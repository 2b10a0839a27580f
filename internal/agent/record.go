package agent

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// transcriptVersion is the version of the record format below.
const transcriptVersion = 1

// recordType names a transcript record.
type recordType string

// The record types. A session's state is the fold of its records (see
// state.apply), both while it runs and when it is loaded, which is what
// makes a reload exact.
const (
	recSession    recordType = "session"    // the header, first record
	recTurn       recordType = "turn"       // a turn starts
	recUpdate     recordType = "update"     // an update as shown (chunks merged)
	recMessage    recordType = "message"    // a message joins the model history
	recUsage      recordType = "usage"      // a round's provider-reported usage
	recModel      recordType = "model"      // a settings change (SetModel, SetEffort, …)
	recCompaction recordType = "compaction" // older messages became a summary
)

// record is one transcript line.
type record struct {
	Type       recordType                `json:"type"`
	Time       time.Time                 `json:"time,omitzero"`
	Header     *header                   `json:"session,omitempty"`
	Turn       int                       `json:"turn,omitempty"`
	Update     *Update                   `json:"update,omitempty"`
	Message    *extproto.ProviderMessage `json:"message,omitempty"`
	Usage      *extproto.ProviderUsage   `json:"usage,omitempty"`
	Model      string                    `json:"model,omitempty"`
	Settings   *storedSettings           `json:"settings,omitempty"`
	Compaction *compactionRecord         `json:"compaction,omitempty"`
}

// header opens every transcript.
type header struct {
	Version   int    `json:"version"`
	ID        string `json:"id"`
	Workspace string `json:"workspace"`
	// Roots are the other workspace roots the session started with
	// (Agent.New's more); the ones it has later are not recorded.
	Roots   []string  `json:"roots,omitempty"`
	Model   string    `json:"model"`
	Created time.Time `json:"created"`
}

// compactionRecord replaces the first Replaced history messages with a
// summary message.
type compactionRecord struct {
	Replaced int    `json:"replaced"`
	Summary  string `json:"summary"`
}

// state is what a session's records add up to.
type state struct {
	header  header
	model   string
	history []extproto.ProviderMessage
	turns   int
	// open is set between a turn's start and its turn_end update.
	open bool
	// usage sums the provider-reported usage of every round.
	usage extproto.ProviderUsage
	// settings are the session's own settings as last stored.
	settings storedSettings
	// calls counts the session's tool call keys; keys maps the current
	// turn's call ids (a subagent's prefixed with its run) to the key of
	// the latest call with that id.
	calls int
	keys  map[string]string
}

// callKey is the key of the session's n-th tool call.
func callKey(n int) string {
	return fmt.Sprintf("tc%d", n)
}

// keyCalls counts the keys of u's tool call. Updates stored before calls
// had keys get them here, the way a live session hands them out, so an
// old transcript replays with unique keys too.
func (st *state) keyCalls(u *Update) {
	if st.keys == nil {
		st.keys = map[string]string{}
	}
	if tc := u.ToolCall; tc != nil {
		if tc.Key == "" {
			tc.Key = st.keys[tc.ID]
			if u.Kind == UpdateToolCall || tc.Key == "" {
				tc.Key = callKey(st.calls + 1)
			}
		}
		if st.keys[tc.ID] != tc.Key {
			st.calls++
			st.keys[tc.ID] = tc.Key
		}
	}
	if p := u.Permission; p != nil && p.ToolCallKey == "" {
		p.ToolCallKey = st.keys[p.ToolCallID]
	}
}

// apply folds one record into the state.
func (st *state) apply(r *record) error {
	switch r.Type {
	case recSession:
		if r.Header == nil {
			return fmt.Errorf("session record without a header")
		}
		if r.Header.Version != transcriptVersion {
			return fmt.Errorf("transcript version %d is not supported (want %d)", r.Header.Version, transcriptVersion)
		}
		st.header, st.model = *r.Header, r.Header.Model
	case recTurn:
		st.turns, st.open = r.Turn, true
		clear(st.keys)
	case recUpdate:
		if r.Update == nil {
			return fmt.Errorf("update record without an update")
		}
		if r.Update.Kind == UpdateTurnEnd {
			st.open = false
		}
		st.keyCalls(r.Update)
	case recMessage:
		if r.Message == nil {
			return fmt.Errorf("message record without a message")
		}
		st.history = append(st.history, *r.Message)
	case recUsage:
		addUsage(&st.usage, r.Usage)
	case recModel:
		st.model = r.Model
		if r.Settings != nil {
			st.settings = *r.Settings
		}
	case recCompaction:
		c := r.Compaction
		if c == nil || c.Replaced < 0 || c.Replaced > len(st.history) {
			return fmt.Errorf("compaction record does not fit the history")
		}
		st.history = append([]extproto.ProviderMessage{summaryMessage(c.Summary)}, st.history[c.Replaced:]...)
	default:
		return fmt.Errorf("unknown record type %q", r.Type)
	}
	return nil
}

func decodeRecord(raw json.RawMessage) (*record, error) {
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
