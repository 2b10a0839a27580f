package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"regexp"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
)

// acp-go-sdk v0.13.0 answers the methods it does not know itself
// (-32601) and has no field for capabilities newer than its schema, but
// hands every method starting with "_" to HandleExtensionMethod. The
// input router renames the requests it cannot serve to internal
// extension methods, which this front end serves:
//
//   - session/delete (the current ACP schema's; the SDK lacks it);
//   - initialize, so its result can advertise sessionCapabilities.delete,
//     which the SDK's AgentCapabilities cannot carry;
//   - session/prompt: the SDK cancels a session's running prompt when
//     another arrives for it, where ACP (and the reference) refuse the
//     second one (-32600) and let the first run on. session/cancel and
//     $/cancel_request still cancel a prompt;
//   - session/close: the SDK runs every request on its own goroutine, so
//     a session/load sent right after a close could run first (and be
//     closed by it) or meet the transcript still held. The router
//     announces the close to the agent as it reads it (onClose), so a
//     load or delete read later waits for it; the close's handler ends
//     the announcement.
//
// The response keeps the client's id (the SDK answers the renamed request
// like any other); every other frame passes byte for byte.
const (
	extInitialize    = "_rx-bridge.internal/initialize"
	extSessionDelete = "_rx-bridge.internal/session/delete"
	extSessionPrompt = "_rx-bridge.internal/session/prompt"
	extSessionClose  = "_rx-bridge.internal/session/close"
)

// routed maps the requests the router renames to their internal names.
var routed = map[string]string{
	string(acpsdk.AgentMethodInitialize):    extInitialize,
	"session/delete":                        extSessionDelete,
	string(acpsdk.AgentMethodSessionPrompt): extSessionPrompt,
	string(acpsdk.AgentMethodSessionClose):  extSessionClose,
}

// maxRoutedLine is the router's read buffer: a longer line is collected
// whole (up to maxFrame) before it is routed and passed on.
const maxRoutedLine = 64 << 10

// maxFrame is the longest frame, newline included, the connection takes:
// the ACP Go SDK's scanner limit (10 MiB). A longer request is answered
// with an error naming the limit instead of reaching the SDK, which
// would end the connection and every session on it. The router holds at
// most this much of one frame.
const maxFrame = 10 << 20

// idWindow is how much of an over-size frame's head and tail is kept to
// find its id.
const idWindow = 4 << 10

// methodRouter is the connection's input: newline-delimited frames as
// the client sent them, but with the routed requests renamed. A line
// that is not a JSON object, a notification and a partial last line are
// passed unchanged, so the SDK reports them as before.
type methodRouter struct {
	r *bufio.Reader
	// onClose, when set, is told the session of each session/close read,
	// before the SDK can dispatch it.
	onClose func(params []byte)
	// onMalformed, when set, is told the JSON-RPC error of each line that
	// is not a request, response or notification object (see malformed);
	// the line is dropped. Unset, such lines pass to the SDK, which logs
	// and skips them.
	onMalformed func(code int, msg string)
	// onOversize, when set, is told the id (nil when none was found) and
	// size of each frame over maxFrame, which is dropped.
	onOversize func(id json.RawMessage, size int)
	// out is what the next Reads return; err is the input's end,
	// returned once out is drained.
	out []byte
	err error
	// A line longer than the read buffer: long is set while it is
	// collected into line (size bytes so far); over maxFrame, line is
	// dropped and only its head and tail are kept, for its id.
	long       bool
	line       []byte
	size       int
	head, tail []byte
}

func newMethodRouter(in io.Reader, onClose func(params []byte)) *methodRouter {
	return &methodRouter{r: bufio.NewReaderSize(in, maxRoutedLine), onClose: onClose}
}

func (m *methodRouter) Read(p []byte) (int, error) {
	for len(m.out) == 0 {
		if m.err != nil {
			return 0, m.err
		}
		line, err := m.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			m.collect(line)
			continue
		}
		if m.long {
			m.collect(line)
			if line = m.finish(); line == nil && err == nil {
				continue // over the limit: answered, dropped
			}
		}
		switch {
		case err != nil:
			// The end of the input: a partial last line goes on as is.
			m.out, m.err = append(m.out, line...), err
		default:
			if code, msg := malformed(line); code != 0 && m.onMalformed != nil {
				m.onMalformed(code, msg)
				continue
			}
			out, to := route(line)
			if to == extSessionClose && m.onClose != nil {
				if params, ok := paramsOf(line); ok {
					m.onClose(params)
				}
			}
			m.out = append(m.out, out...)
		}
	}
	n := copy(p, m.out)
	m.out = m.out[n:]
	if len(m.out) == 0 {
		m.out = m.out[:0:0] // do not pin a long line's memory
	}
	return n, nil
}

// malformed reports a line the SDK would skip without an answer: not
// JSON is a parse error (-32700); JSON that is not an object — a batch,
// which ACP does not use, or a bare value — is an Invalid Request
// (-32600), as JSON-RPC 2.0 answers both, with a null id. A blank line
// is nothing (0).
func malformed(line []byte) (code int, msg string) {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return 0, ""
	case !json.Valid(t):
		return codeParseError, "parse error: the line is not JSON"
	case t[0] == '[':
		return codeInvalidRequest, "invalid request: batches are not supported; send one JSON-RPC object per line"
	case t[0] != '{':
		return codeInvalidRequest, "invalid request: a frame must be a JSON-RPC object"
	case nullIDRequest(t):
		return codeInvalidRequest, "invalid request: a request's id must be a string or a number (null would make the answer impossible to match)"
	}
	return 0, ""
}

// nullIDRequest reports a request whose id is present and null. JSON-RPC
// 2.0 makes it a request (discouraged), not a notification, but the SDK
// would run it as a notification and never answer; it is answered
// -32600 with a null id instead, and not run.
func nullIDRequest(t []byte) bool {
	if !bytes.Contains(t, []byte("null")) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return false
	}
	var method, nullID bool
	for k, v := range m { // encoding/json matches member names case-insensitively
		switch {
		case strings.EqualFold(k, "method"):
			method = true
		case strings.EqualFold(k, "id"):
			nullID = string(bytes.TrimSpace(v)) == "null"
		}
	}
	return method && nullID
}

// collect adds b to the long line being read.
func (m *methodRouter) collect(b []byte) {
	m.long = true
	m.size += len(b)
	if m.size <= maxFrame {
		m.line = append(m.line, b...)
		return
	}
	if m.line != nil { // just went over: keep the head, drop the rest
		m.head = append([]byte(nil), m.line[:min(len(m.line), idWindow)]...)
		m.line = nil
	}
	if len(b) >= idWindow {
		m.tail = append(m.tail[:0], b[len(b)-idWindow:]...)
		return
	}
	m.tail = append(m.tail, b...)
	if n := len(m.tail); n > idWindow {
		copy(m.tail, m.tail[n-idWindow:])
		m.tail = m.tail[:idWindow]
	}
}

// finish ends the long line: it returns it whole, or nil when it was
// over maxFrame (after telling onOversize).
func (m *methodRouter) finish() []byte {
	line, size, head, tail := m.line, m.size, m.head, m.tail
	m.long, m.line, m.size, m.head, m.tail = false, nil, 0, nil, nil
	if size <= maxFrame {
		return line
	}
	if m.onOversize != nil {
		m.onOversize(frameID(head, tail), size)
	}
	return nil
}

// frameIDPattern finds a JSON-RPC id member: a string or an integer.
var frameIDPattern = regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)`)

// frameID is the id of a frame too long to decode, found in its head
// (the first id member: clients write the envelope first) or else its
// tail (the last one); nil when neither has one.
func frameID(head, tail []byte) json.RawMessage {
	if m := frameIDPattern.FindSubmatch(head); m != nil {
		return json.RawMessage(m[1])
	}
	if all := frameIDPattern.FindAllSubmatch(tail, -1); len(all) > 0 {
		return json.RawMessage(all[len(all)-1][1])
	}
	return nil
}

// route returns line (one frame and its newline) with a routed
// request's method renamed, and the new name, or line itself and "".
// Only the method's value changes: every other byte stays as the client
// sent it.
func route(line []byte) ([]byte, string) {
	start, end, method, ok := locateMethod(line)
	to, routedMethod := routed[method]
	if !ok || !routedMethod {
		return line, ""
	}
	name, _ := json.Marshal(to)
	out := make([]byte, 0, len(line)-(end-start)+len(name))
	out = append(append(append(out, line[:start]...), name...), line[end:]...)
	return out, to
}

// paramsOf is a frame's params as the SDK decodes them; ok is false
// for a frame the SDK cannot decode (it drops it, so its handler never
// runs to end an announcement).
func paramsOf(line []byte) (params json.RawMessage, ok bool) {
	var m struct { // the SDK's anyMessage
		JSONRPC string               `json:"jsonrpc"`
		ID      *json.RawMessage     `json:"id,omitempty"`
		Method  string               `json:"method,omitempty"`
		Params  json.RawMessage      `json:"params,omitempty"`
		Result  json.RawMessage      `json:"result,omitempty"`
		Error   *acpsdk.RequestError `json:"error,omitempty"`
	}
	if json.Unmarshal(line, &m) != nil {
		return nil, false
	}
	return m.Params, true
}

// locateMethod finds the method of a request frame as the SDK decodes it
// (encoding/json: member names match case-insensitively, the last one
// wins): its value's byte range in line and the name. ok is false for
// anything but one JSON object with a string method and a non-null id.
func locateMethod(line []byte) (start, end int, method string, ok bool) {
	if !bytes.Contains(bytes.ToLower(line), []byte(`"method"`)) {
		return 0, 0, "", false
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, "", false
	}
	start, hasID, isString := -1, false, false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return 0, 0, "", false
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, "", false
		}
		switch {
		case strings.EqualFold(key, "method"):
			end = int(dec.InputOffset())
			start = end - len(raw)
			method = ""
			isString = json.Unmarshal(raw, &method) == nil
		case strings.EqualFold(key, "id"):
			hasID = string(raw) != "null"
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || len(bytes.TrimSpace(line[dec.InputOffset():])) != 0 {
		return 0, 0, "", false
	}
	return start, end, method, start >= 0 && hasID && isString
}

// deleteRequest is session/delete's params (the current ACP schema's
// DeleteSessionRequest).
type deleteRequest struct {
	SessionId acpsdk.SessionId `json:"sessionId"`
}

// HandleExtensionMethod serves the routed requests. Any other "_" method
// is unknown (-32601), as the SDK answers it for agents without
// extensions.
func (s *server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case extInitialize:
		var p acpsdk.InitializeRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if err := p.Validate(); err != nil {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		res, err := s.Initialize(ctx, p)
		if err != nil {
			return nil, err
		}
		return withDeleteCapability(res)
	case extSessionPrompt:
		var p acpsdk.PromptRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		if err := p.Validate(); err != nil {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return s.Prompt(ctx, p)
	case extSessionClose:
		var p acpsdk.CloseSessionRequest
		if err := json.Unmarshal(params, &p); err != nil {
			// closeRead's decode failed the same way: nothing announced.
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		defer s.closeServed(string(p.SessionId))
		if err := p.Validate(); err != nil {
			return nil, acpsdk.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		return s.CloseSession(ctx, p)
	case extSessionDelete:
		var p deleteRequest
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, rpcError(codeInvalidParams, "session/delete: %v", err)
		}
		return s.deleteSession(ctx, p)
	case methodReloadExtensions:
		return s.reloadExtensions(ctx, params)
	case methodUndoTurn:
		return s.undoTurn(ctx, params)
	}
	return nil, acpsdk.NewMethodNotFound(method)
}

// withDeleteCapability is the initialize result with
// agentCapabilities.sessionCapabilities.delete = {} added (the current
// schema's SessionDeleteCapabilities; the SDK's struct has no field for
// it).
func withDeleteCapability(res acpsdk.InitializeResponse) (json.RawMessage, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var top, caps, sess map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(top["agentCapabilities"], &caps); err != nil {
		return nil, err
	}
	if sc, ok := caps["sessionCapabilities"]; ok {
		if err := json.Unmarshal(sc, &sess); err != nil {
			return nil, err
		}
	}
	if sess == nil {
		sess = map[string]json.RawMessage{}
	}
	sess["delete"] = json.RawMessage(`{}`)
	if caps["sessionCapabilities"], err = json.Marshal(sess); err != nil {
		return nil, err
	}
	if top["agentCapabilities"], err = json.Marshal(caps); err != nil {
		return nil, err
	}
	return json.Marshal(top)
}

// methodReloadExtensions is the reference's vendor method that rebuilds
// the plugin runtime from the install records.
const methodReloadExtensions = "_reasonix.io/session/reloadExtensions"

// reloadExtensions serves _reasonix.io/session/reloadExtensions
// {sessionId}: the plugin runtime is rebuilt now (one runtime serves
// every session of the connection) and {} answered; a failed build keeps
// the running plugins and is an error naming the plugin. A turn in
// flight keeps the generation it started on (it is pinned), so the
// reload is never queued ({"queued": true} is never answered). Every
// open session whose command list changed gets it again.
func (s *server) reloadExtensions(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID acpsdk.SessionId `json:"sessionId"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcError(codeInvalidParams, "%s: %v", methodReloadExtensions, err)
	}
	if _, ok := s.session(p.SessionID); !ok {
		return nil, rpcError(codeInvalidParams, "%s: unknown session %s", methodReloadExtensions, p.SessionID)
	}
	if _, err := s.rt.Reload(ctx); err != nil {
		return nil, rpcError(codeInternal, "%s: %v", methodReloadExtensions, err)
	}
	return map[string]any{}, nil
}

// methodUndoTurn is rx-bridge's vendor method that undoes a session's
// last turn: the engine's undo, as serve's rx/session/undoTurn and
// chat's /undo.
const methodUndoTurn = "_reasonix.io/session/undoTurn"

// undoResult is the _reasonix.io/session/undoTurn result, the shape of
// serve's rx/session/undoTurn result.
type undoResult struct {
	Turn     int        `json:"turn"`
	Restored []string   `json:"restored"`
	Skipped  []undoSkip `json:"skipped"`
}

type undoSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// undoTurn serves _reasonix.io/session/undoTurn {sessionId, force?}: the
// session's newest turn that changed files and is not undone yet is
// undone (agent.Session.UndoTurn), its files restored through
// fs/write_text_file when the client offers it, else on disk
// (clientEditor.RestoreFiles). An unknown session and nothing to undo
// are -32602, a running turn -32600, a failed restore -32603.
func (s *server) undoTurn(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		SessionID acpsdk.SessionId `json:"sessionId"`
		Force     bool             `json:"force"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, rpcError(codeInvalidParams, "%s: %v", methodUndoTurn, err)
	}
	ss, ok := s.session(p.SessionID)
	if !ok {
		return nil, rpcError(codeInvalidParams, "%s: unknown session %s", methodUndoTurn, p.SessionID)
	}
	// The client's fs methods are scoped to the session, as a turn's.
	id := string(p.SessionID)
	u, err := ss.s.UndoTurn(context.WithValue(ctx, sessionKey{}, id), p.Force)
	switch {
	case errors.Is(err, agent.ErrNothingToUndo), errors.Is(err, agent.ErrSessionClosed):
		return nil, rpcError(codeInvalidParams, "%s: %v", methodUndoTurn, err)
	case errors.Is(err, agent.ErrTurnRunning):
		return nil, rpcError(codeInvalidRequest, "%s: %v", methodUndoTurn, err)
	case err != nil:
		return nil, rpcError(codeInternal, "%s: %v", methodUndoTurn, err)
	}
	res := undoResult{Turn: u.Turn, Restored: u.Restored, Skipped: make([]undoSkip, 0, len(u.Skipped))}
	for _, k := range u.Skipped {
		res.Skipped = append(res.Skipped, undoSkip{Path: k.Path, Reason: k.Reason})
	}
	return res, nil
}
