package wire

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Envelope validation, in the order of PROTOCOL_DETAILS §1.2. One pass over
// the line finds the six envelope members and validates all JSON syntax;
// params and result stay raw byte spans for the caller's strict decoder.
// Member names are matched exactly (encoding/json would also match
// "Method" or "ID" case-insensitively, which would let a frame mean two
// things to two decoders).

type kind uint8

const (
	kindRequest kind = iota + 1
	kindNotification
	kindResponse
)

// message is a validated inbound envelope. Its byte slices point into the
// frame and are valid only until the next frame is read.
type message struct {
	kind   kind
	id     int64
	nullID bool // a response with "id":null: the peer reports an error it could not attribute
	method string
	params []byte // nil when absent
	result []byte // nil when absent; "null" when the result is null
	// errCode, errMessage and errData are the members of a response's
	// error object; errMessage is the raw JSON string token.
	hasError   bool
	errCode    int64
	errMessage []byte
	errData    []byte
}

// Wire messages of the JSON-RPC level rejections. They carry no data.
const (
	msgParseError     = "parse error"
	msgInvalidRequest = "invalid request"
)

// rejection is a frame that failed envelope validation and the reply it
// gets. The reply never echoes an id that is not a valid integer id.
type rejection struct {
	code int
	echo bool // reply with id; otherwise "id":null
	id   int64
	why  string // for the log only, never on the wire
	// failPending is set for a malformed response whose id is a valid
	// integer: the call it answers can never complete, so it fails locally.
	failPending bool
}

// parser decodes envelopes. It is owned by the read loop.
type parser struct {
	scan scanner
	// methods interns method names so the common case allocates nothing.
	methods map[string]string
}

// Interning bounds: a peer inventing method names cannot grow the table
// past this, nor pin large strings in it.
const (
	internMax    = 256
	internMaxLen = 96
)

func newParser() *parser {
	return &parser{methods: make(map[string]string)}
}

// envelope holds the raw values of the members we know; nil means absent.
type envelope struct {
	jsonrpc, id, method, params, result, err []byte
}

func (e *envelope) slot(name []byte) *[]byte {
	switch string(name) {
	case "jsonrpc":
		return &e.jsonrpc
	case "id":
		return &e.id
	case "method":
		return &e.method
	case "params":
		return &e.params
	case "result":
		return &e.result
	case "error":
		return &e.err
	}
	return nil
}

func invalid(why string) rejection {
	return rejection{code: extproto.CodeInvalidRequest, why: why}
}

// scanResult is the syntactic verdict on a frame.
type scanResult uint8

const (
	scanObject    scanResult = iota
	scanNotObject            // valid JSON, but not an object
	scanSyntax               // not valid JSON
)

// scanEnvelope validates the whole frame and returns the raw values of
// the envelope members, and whether one of them appears twice.
func (p *parser) scanEnvelope(line []byte) (env envelope, dup bool, res scanResult) {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		// Rule 1 before rule 2: only valid JSON can be "not an object".
		if p.scan.valid(line) {
			return env, false, scanNotObject
		}
		return env, false, scanSyntax
	}
	it := members{data: line, i: i, scan: &p.scan, depth: 1}
	for {
		key, val, more, ok := it.next()
		if !ok {
			return env, false, scanSyntax
		}
		if !more {
			break
		}
		if slot := env.slot(key); slot != nil {
			dup = dup || *slot != nil
			*slot = val
		}
	}
	if skipSpace(line, it.i) != len(line) {
		return env, false, scanSyntax // trailing data after the object
	}
	return env, dup, scanObject
}

func (p *parser) parse(line []byte) (message, rejection, bool) {
	var m message
	env, dup, res := p.scanEnvelope(line)
	switch res {
	case scanSyntax:
		return m, rejection{code: extproto.CodeParseError, why: "invalid JSON"}, false
	case scanNotObject:
		return m, invalid("frame is not a JSON object"), false
	}
	// A repeated envelope member makes the frame ambiguous (decoders
	// disagree on first or last wins), so it is refused like a non-object.
	if dup {
		return m, invalid("duplicate envelope member"), false
	}

	// Rule 4 is read before rule 3 is judged, so a request with a valid
	// id and a wrong jsonrpc gets its id echoed (PROTOCOL_DETAILS §11.1,
	// StrictFrameViolations); the order of the verdicts is unchanged.
	// Integers only: "null" is legal only on an error response (JSON-RPC's
	// "id could not be determined"); on anything else it is an invalid id.
	idOK := false
	if env.id != nil {
		if string(env.id) == "null" {
			m.nullID = true
		} else if c := env.id[0]; c == '-' || isDigit(c) {
			m.id, idOK = parseInt(env.id)
		}
	}

	// Rule 3.
	if !isVersion(env.jsonrpc) {
		rej := invalid(`jsonrpc is not "2.0"`)
		if env.method != nil && idOK {
			rej.echo, rej.id = true, m.id
		}
		m.nullID = false
		return m, rej, false
	}
	if env.id != nil && !idOK && !m.nullID {
		return m, invalid("id is not an integer"), false
	}

	// Rule 5: a request or notification.
	if env.method != nil {
		if m.nullID {
			m.nullID = false
			return m, invalid("request id is null"), false
		}
		rej := rejection{code: extproto.CodeInvalidRequest, echo: idOK, id: m.id}
		method, ok := p.methodName(env.method)
		switch {
		case !ok:
			rej.why = "method is not a non-empty string"
			return m, rej, false
		case env.result != nil || env.err != nil:
			rej.why = "request carries result or error"
			return m, rej, false
		case env.params != nil && env.params[0] != '{':
			rej.why = "params is not an object"
			return m, rej, false
		}
		m.method, m.params = method, env.params
		m.kind = kindNotification
		if idOK {
			m.kind = kindRequest
		}
		return m, rejection{}, true
	}

	// Rule 6: a response. The reply to a malformed response never echoes
	// its id: that id is in the peer's own id space and would look like an
	// answer to one of the peer's calls.
	rej := rejection{code: extproto.CodeInvalidRequest, id: m.id, failPending: idOK}
	switch {
	case env.id == nil:
		rej.why = "response without id"
		return m, rej, false
	case env.params != nil:
		rej.why = "response carries params"
		return m, rej, false
	case (env.result == nil) == (env.err == nil):
		rej.why = "response needs exactly one of result and error"
		return m, rej, false
	case m.nullID && env.result != nil:
		m.nullID = false
		rej.why = "result with a null id"
		return m, rej, false
	}
	if env.err != nil {
		code, msg, data, ok := p.errorObject(env.err)
		if !ok {
			rej.why = "error is not an object with an integer code and a string message"
			return m, rej, false
		}
		m.hasError, m.errCode, m.errMessage, m.errData = true, code, msg, data
	}
	m.kind, m.result = kindResponse, env.result
	return m, rejection{}, true
}

// methodName returns the method of a raw member value when it is a
// non-empty string, interning short names.
func (p *parser) methodName(raw []byte) (string, bool) {
	if raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if s, ok := p.methods[string(inner)]; ok {
		return s, true
	}
	s, ok := unquote(raw)
	if !ok || s == "" {
		return "", false
	}
	if plainASCII(inner) && len(inner) <= internMaxLen && len(p.methods) < internMax {
		p.methods[s] = s
	}
	return s, true
}

// errorObject validates a response's error member: an object with an
// integer code and a string message; data is optional and any JSON.
func (p *parser) errorObject(raw []byte) (code int64, msg, data []byte, ok bool) {
	if raw[0] != '{' {
		return 0, nil, nil, false
	}
	var codeTok []byte
	it := members{data: raw, scan: &p.scan, depth: 2}
	for {
		key, val, more, good := it.next()
		if !good {
			return 0, nil, nil, false
		}
		if !more {
			break
		}
		var slot *[]byte
		switch string(key) {
		case "code":
			slot = &codeTok
		case "message":
			slot = &msg
		case "data":
			slot = &data
		default:
			continue
		}
		if *slot != nil {
			return 0, nil, nil, false
		}
		*slot = val
	}
	if codeTok == nil || msg == nil || msg[0] != '"' {
		return 0, nil, nil, false
	}
	if code, ok = parseInt(codeTok); !ok {
		return 0, nil, nil, false
	}
	return code, msg, data, true
}

// members iterates the members of the object that starts at data[i],
// validating as it goes. depth is the nesting depth of the member values.
type members struct {
	data    []byte
	i       int
	scan    *scanner
	depth   int
	started bool
}

// next returns the next member. more is false at the closing brace (then
// it.i is just past it); ok is false on a syntax error.
func (it *members) next() (key, val []byte, more, ok bool) {
	d := it.data
	i := skipSpace(d, it.i)
	if !it.started {
		if i >= len(d) || d[i] != '{' {
			return nil, nil, false, false
		}
		it.started = true
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			it.i = i + 1
			return nil, nil, false, true
		}
	} else {
		if i >= len(d) {
			return nil, nil, false, false
		}
		if d[i] == '}' {
			it.i = i + 1
			return nil, nil, false, true
		}
		if d[i] != ',' {
			return nil, nil, false, false
		}
		i = skipSpace(d, i+1)
	}
	if i >= len(d) || d[i] != '"' {
		return nil, nil, false, false
	}
	ke, escaped, good := scanString(d, i)
	if !good {
		return nil, nil, false, false
	}
	rawKey := d[i:ke]
	i = skipSpace(d, ke)
	if i >= len(d) || d[i] != ':' {
		return nil, nil, false, false
	}
	vs := skipSpace(d, i+1)
	ve, good := it.scan.value(d, vs, it.depth)
	if !good {
		return nil, nil, false, false
	}
	it.i = ve
	key = rawKey[1 : len(rawKey)-1]
	if escaped {
		// Rare: a key spelled with escapes ("\u0069d" is "id"). JSON says
		// it is the same key, so decode it.
		s, _ := unquote(rawKey)
		key = []byte(s)
	}
	return key, d[vs:ve], true, true
}

// isVersion reports whether raw is the JSON string "2.0", however spelled.
func isVersion(raw []byte) bool {
	if string(raw) == `"2.0"` {
		return true
	}
	if raw == nil || raw[0] != '"' {
		return false
	}
	s, ok := unquote(raw)
	return ok && s == "2.0"
}

// unquote decodes a raw JSON string token. Plain ASCII without escapes
// is converted directly; anything else goes through encoding/json so
// escapes and invalid UTF-8 decode exactly as every other decoder does.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if plainASCII(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}
