package acp

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"
)

// frameWriter is stdout: the SDK writes one whole frame per Write, and
// the front end writes the frames the SDK has no type for (notify). It
// runs a hook once after the response frame it waits for is written, so
// a notification can follow a result (available_commands_update after
// session/new, as the reference orders them), and it puts an
// elicitation's scope where the ACP schema wants it (scopeElicitation).
type frameWriter struct {
	w io.Writer

	wmu sync.Mutex // one frame at a time on w

	mu    sync.Mutex
	hooks []afterHook
}

type afterHook struct {
	// match are byte strings only the awaited response contains.
	match [][]byte
	run   func()
}

// after runs f (on its own goroutine) once a response frame containing
// every one of match has been written.
func (f *frameWriter) after(run func(), match ...string) {
	h := afterHook{run: run}
	for _, m := range match {
		h.match = append(h.match, []byte(m))
	}
	f.mu.Lock()
	f.hooks = append(f.hooks, h)
	f.mu.Unlock()
}

func (h afterHook) matches(p []byte) bool {
	for _, m := range h.match {
		if !bytes.Contains(p, m) {
			return false
		}
	}
	return true
}

func (f *frameWriter) write(p []byte) (int, error) {
	f.wmu.Lock()
	defer f.wmu.Unlock()
	return f.w.Write(p)
}

func (f *frameWriter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte(`"method":"`+methodElicitationCreate+`"`)) {
		n := len(p)
		if _, err := f.write(scopeElicitation(p)); err != nil {
			return 0, err
		}
		return n, nil
	}
	n, err := f.write(p)
	if err != nil || !bytes.Contains(p, []byte(`"result"`)) || bytes.Contains(p, []byte(`"method"`)) {
		return n, err
	}
	f.mu.Lock()
	var due []afterHook
	keep := f.hooks[:0]
	for _, h := range f.hooks {
		if h.matches(p) {
			due = append(due, h)
		} else {
			keep = append(keep, h)
		}
	}
	f.hooks = keep
	f.mu.Unlock()
	for _, h := range due {
		go h.run()
	}
	return n, err
}

// notify writes a notification the SDK has no type for (a session/update
// kind outside the schema's union).
func (f *frameWriter) notify(method string, params any) error {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	if err != nil {
		return err
	}
	_, err = f.write(append(b, '\n'))
	return err
}

// methodElicitationCreate is the ACP method of an elicitation.
const methodElicitationCreate = "elicitation/create"

// scopeKey is the _meta member an elicitation's scope travels in from
// the SDK's request type to the wire (scopeElicitation).
const scopeKey = "rx-bridge.scope"

// scopeElicitation moves an elicitation/create frame's scope (sessionId,
// toolCallId) from _meta[scopeKey] to the top of its params, where the
// ACP schema (@agentclientprotocol/sdk 2.4.0) requires it: acp-go-sdk
// v0.13.0's UnstableCreateElicitationForm predates the scope and has no
// member for it. A frame without the scope is written unchanged.
func scopeElicitation(frame []byte) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(frame, &msg) != nil {
		return frame
	}
	var params map[string]any
	dec := json.NewDecoder(bytes.NewReader(msg["params"]))
	dec.UseNumber()
	if dec.Decode(&params) != nil {
		return frame
	}
	meta, _ := params["_meta"].(map[string]any)
	scope, ok := meta[scopeKey].(map[string]any)
	if !ok {
		return frame
	}
	for k, v := range scope {
		params[k] = v
	}
	delete(meta, scopeKey)
	if len(meta) == 0 {
		delete(params, "_meta")
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return frame
	}
	msg["params"] = raw
	out, err := json.Marshal(msg)
	if err != nil {
		return frame
	}
	return append(out, '\n')
}
