package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// FuzzReadFrames feeds arbitrary bytes through the frame reader and the
// envelope parser, exactly as the read loop does, and checks:
//   - the reader splits lines like bytes.SplitAfter and enforces the
//     budget (newline included) at the first line that exceeds it;
//   - "parse error" means precisely what json.Valid says;
//   - the envelope members found are those encoding/json finds;
//   - a rejection's reply is valid JSON, carries no data, never echoes an
//     id that is not a valid integer id of the frame, and is itself a
//     well-formed response (so two of us can never ping-pong errors);
//   - accepted frames satisfy every rule of PROTOCOL_DETAILS §1.2;
//   - our string and raw-value encoders agree with encoding/json.
func FuzzReadFrames(f *testing.F) {
	var all []string
	for _, tc := range append(append([]frameCase{}, rejectionCases...), acceptedCases...) {
		f.Add([]byte(tc.frame + "\n"))
		all = append(all, tc.frame)
	}
	f.Add([]byte(strings.Join(all, "\n")))
	f.Add([]byte(strings.Join(all, "\r\n") + "\r\n"))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` + "\n" + `{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"x","data":{"reason":"internal","retryable":true}}}`))
	f.Add([]byte(strings.Repeat("[", 40) + strings.Repeat("]", 40)))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"m","params":{"a":"` + strings.Repeat("x", 600) + `"}}` + "\nnext\n"))
	f.Add([]byte("\n\n \t\r\n{}\n"))

	f.Fuzz(func(t *testing.T, data []byte) {
		const limit = 512
		// A small bufio buffer (its size varying with the input) makes
		// lines span refills, and keeps each run cheap.
		fr := &frameReader{br: bufio.NewReaderSize(bytes.NewReader(data), 16+len(data)%64), limit: limit}
		p := newParser()
		ref := bytes.SplitAfter(data, []byte("\n"))
		if len(ref) > 0 && len(ref[len(ref)-1]) == 0 {
			ref = ref[:len(ref)-1]
		}
		for i := 0; ; i++ {
			line, err := fr.next()
			if err != nil {
				switch {
				case errors.Is(err, io.EOF):
					if i != len(ref) {
						t.Fatalf("EOF after %d lines, want %d", i, len(ref))
					}
				case errors.Is(err, extproto.ErrFrameTooLarge):
					if i >= len(ref) || len(ref[i]) <= limit {
						t.Fatalf("frame_too_large at line %d, which is within the budget", i)
					}
				default:
					t.Fatalf("unexpected read error %v", err)
				}
				return
			}
			if i >= len(ref) || string(line) != string(bytes.TrimSuffix(ref[i], []byte("\n"))) {
				t.Fatalf("line %d is %q", i, line)
			}
			if len(ref[i]) > limit {
				t.Fatalf("line %d of %d bytes accepted over a %d budget", i, len(ref[i]), limit)
			}
			if frame := trimFrame(line); len(frame) > 0 {
				checkFrame(t, p, append([]byte(nil), frame...))
			}
		}
	})
}

func checkFrame(t *testing.T, p *parser, frame []byte) {
	env, dup, res := p.scanEnvelope(frame)
	if (res == scanSyntax) == json.Valid(frame) {
		t.Fatalf("scanner says %v, json.Valid says %v for %q", res, json.Valid(frame), frame)
	}
	if res == scanObject && !dup {
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(frame, &ref); err != nil {
			t.Fatalf("encoding/json cannot decode an object we accepted: %v", err)
		}
		for name, got := range map[string][]byte{"jsonrpc": env.jsonrpc, "id": env.id, "method": env.method, "params": env.params, "result": env.result, "error": env.err} {
			want, present := ref[name]
			if present != (got != nil) || (present && !bytes.Equal(got, want)) {
				t.Fatalf("member %s: got %q, encoding/json %q (present %v)", name, got, want, present)
			}
		}
	}

	m, rej, ok := p.parse(frame)
	if !ok {
		checkRejection(t, frame, env, rej)
		return
	}
	if res != scanObject || dup || !isVersion(env.jsonrpc) {
		t.Fatalf("accepted a frame that breaks rules 1-3: %q", frame)
	}
	switch m.kind {
	case kindRequest, kindNotification:
		if m.method == "" || env.result != nil || env.err != nil || (env.params != nil && env.params[0] != '{') {
			t.Fatalf("accepted request breaks rule 5: %q", frame)
		}
		if m.kind == kindRequest {
			if id, good := refIntID(env.id); !good || id != m.id {
				t.Fatalf("request id %d from %q", m.id, env.id)
			}
		} else if env.id != nil {
			t.Fatalf("notification with an id: %q", frame)
		}
		checkStringEncoding(t, m.method)
	case kindResponse:
		if env.id == nil || env.params != nil || (env.result == nil) == (env.err == nil) {
			t.Fatalf("accepted response breaks rule 6: %q", frame)
		}
		if m.nullID != (string(env.id) == "null") || (m.nullID && !m.hasError) {
			t.Fatalf("null id handling: %q", frame)
		}
		if !m.nullID {
			if id, good := refIntID(env.id); !good || id != m.id {
				t.Fatalf("response id %d from %q", m.id, env.id)
			}
		}
		if m.hasError {
			var w struct {
				Code    json.Number `json:"code"`
				Message string      `json:"message"`
			}
			if err := json.Unmarshal(env.err, &w); err != nil {
				t.Fatalf("error object we accepted: %v", err)
			}
			if msg, _ := unquote(m.errMessage); msg != w.Message {
				t.Fatalf("error message %q, encoding/json %q", msg, w.Message)
			}
		}
	default:
		t.Fatalf("unknown kind %d", m.kind)
	}
	// Our raw-value encoder keeps any valid value on one line, unchanged
	// in meaning.
	fb := getBuf()
	defer putBuf(fb)
	if err := fb.value(json.RawMessage(frame)); err != nil {
		t.Fatalf("value(%q): %v", frame, err)
	}
	if bytes.ContainsAny(fb.b, "\r\n") || !json.Valid(fb.b) {
		t.Fatalf("value(%q) = %q", frame, fb.b)
	}
}

func checkRejection(t *testing.T, frame []byte, env envelope, rej rejection) {
	if rej.code != extproto.CodeParseError && rej.code != extproto.CodeInvalidRequest {
		t.Fatalf("rejection code %d", rej.code)
	}
	if rej.echo {
		id, good := refIntID(env.id)
		if rej.code == extproto.CodeParseError || !good || id != rej.id || env.method == nil {
			t.Fatalf("echoes id %d for %q (frame %q)", rej.id, env.id, frame)
		}
	}
	fb := getBuf()
	defer putBuf(fb)
	fb.errorResponse(rej.id, rej.echo, extproto.WireError{Code: rej.code, Message: msgInvalidRequest})
	reply := bytes.TrimSuffix(fb.b, []byte("\n"))
	if !json.Valid(reply) || bytes.Contains(reply, []byte(`"data"`)) {
		t.Fatalf("bad reply %s", reply)
	}
	m, _, ok := newParser().parse(reply)
	if !ok || m.kind != kindResponse || !m.hasError || m.nullID == rej.echo {
		t.Fatalf("our reply %s would itself be rejected or answered", reply)
	}
}

// refIntID is the reference for "a valid id": a JSON integer literal that
// fits an int64, checked with encoding/json and strconv.
func refIntID(raw []byte) (int64, bool) {
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) != nil || strings.ContainsAny(string(n), ".eE") {
		return 0, false
	}
	id, err := strconv.ParseInt(string(n), 10, 64)
	return id, err == nil
}

func checkStringEncoding(t *testing.T, s string) {
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	got := appendString(nil, s)
	if string(got)+"\n" != want.String() {
		t.Fatalf("appendString(%q) = %s, encoding/json %s", s, got, want.String())
	}
	if utf8.ValidString(s) {
		var back string
		if json.Unmarshal(got, &back) != nil || back != s {
			t.Fatalf("appendString(%q) does not round-trip", s)
		}
	}
}
