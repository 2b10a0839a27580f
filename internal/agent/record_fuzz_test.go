package agent

import (
	"bytes"
	"encoding/json"
	"testing"
)

// transcriptSeed is a session's records as a turn with a tool call, usage,
// a model change and a compaction writes them.
const transcriptSeed = `{"type":"session","time":"2025-01-02T03:04:05Z","session":{"version":1,"id":"s1","workspace":"/w","model":"a/b","created":"2025-01-02T03:04:05Z"}}
{"type":"turn","time":"2025-01-02T03:04:06Z","turn":1}
{"type":"update","update":{"sessionUpdate":"user_message_chunk","turn":1,"text":"hi"}}
{"type":"message","message":{"role":"user","content":"hi"}}
{"type":"message","message":{"role":"assistant","tool_calls":[{"id":"c1","name":"read_file","arguments":"{\"path\":\"a.txt\"}"}]}}
{"type":"update","update":{"sessionUpdate":"tool_call","turn":1,"toolCall":{"toolCallId":"c1","name":"read_file","title":"Read a.txt","kind":"read","status":"completed"}}}
{"type":"message","message":{"role":"tool","tool_call_id":"c1","content":"alpha"}}
{"type":"usage","usage":{"promptTokens":3,"completionTokens":1,"totalTokens":4}}
{"type":"model","model":"plugin/p/q/r"}
{"type":"compaction","compaction":{"replaced":2,"summary":"earlier"}}
{"type":"update","update":{"sessionUpdate":"turn_end","turn":1,"end":{"stopReason":"end_turn"}}}
`

// FuzzTranscriptRecords feeds arbitrary lines as transcript records, the
// way Load folds them. No record may panic the fold, and a record that
// decodes must encode to bytes that decode to a record encoding to the
// same bytes: what a session writes is what its reload rebuilds.
func FuzzTranscriptRecords(f *testing.F) {
	f.Add([]byte(transcriptSeed))
	for _, line := range bytes.Split([]byte(transcriptSeed), []byte("\n")) {
		f.Add(line)
	}
	for _, s := range []string{
		`{"type":"compaction","compaction":{"replaced":-1}}`, `{"type":"compaction","compaction":{"replaced":99}}`,
		`{"type":"session","session":{"version":2}}`, `{"type":"update"}`, `{"type":"message"}`, `{"type":"usage"}`,
		`{"type":"nope"}`, `{"type":"turn","turn":-5,"time":"0001-01-01T00:00:00Z"}`, `{"type":"message","message":{"content":"\ud800"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st state
		for _, line := range bytes.Split(data, []byte("\n")) {
			r, err := decodeRecord(line)
			if err != nil {
				continue
			}
			before := len(st.history)
			if err := st.apply(r); err == nil && r.Type == recCompaction && len(st.history) != before-r.Compaction.Replaced+1 {
				t.Fatalf("compaction of %d from %d left %d messages", r.Compaction.Replaced, before, len(st.history))
			}
			written, err := json.Marshal(r)
			if err != nil {
				continue // not a record a session can write (a time past year 9999)
			}
			back, err := decodeRecord(written)
			if err != nil {
				t.Fatalf("%s, as written, does not decode: %v", written, err)
			}
			if again, _ := json.Marshal(back); !bytes.Equal(written, again) {
				t.Fatalf("reload changed the record:\n%s\n%s", written, again)
			}
		}
	})
}
