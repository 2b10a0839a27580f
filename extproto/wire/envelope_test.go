package wire

import (
	"testing"
)

const (
	replyParse        = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`
	replyInvalidNull  = `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`
	replyInvalidEcho7 = `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"invalid request"}}`
)

// TestEnvelopeRejections covers every rule of PROTOCOL_DETAILS §1.2, in
// order. Each rejected frame gets exactly the reply shown (no data, an
// invalid id never echoed) and the connection survives.
func TestEnvelopeRejections(t *testing.T) {
	t.Parallel()
	for _, tc := range rejectionCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, p := newRawPeer(t, Options{Handler: echo})
			p.send(tc.frame)
			if got := p.recv(); got != tc.reply {
				t.Fatalf("frame %s\n got reply %s\nwant reply %s", tc.frame, got, tc.reply)
			}
			p.roundTrip(1)
			if !alive(c) {
				t.Fatalf("connection ended: %v", c.Err())
			}
		})
	}
}

// TestEnvelopeAccepted covers frames that must pass: unknown members
// tolerated, escaped member names, whitespace, missing params.
func TestEnvelopeAccepted(t *testing.T) {
	t.Parallel()
	for _, tc := range acceptedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, p := newRawPeer(t, Options{Handler: echo})
			p.send(tc.frame)
			if got := p.recv(); got != tc.reply {
				t.Fatalf("frame %q\n got %s\nwant %s", tc.frame, got, tc.reply)
			}
		})
	}
}

// TestBlankLinesSkipped: whitespace-only lines get no answer at all.
func TestBlankLinesSkipped(t *testing.T) {
	t.Parallel()
	c, p := newRawPeer(t, Options{Handler: echo})
	p.send("", "   ", "\t\r", "\r")
	p.roundTrip(1)
	p.expectNothing()
	if !alive(c) {
		t.Fatal(c.Err())
	}
}

// frameCase is one inbound frame and the exact reply it gets.
type frameCase struct{ name, frame, reply string }

var rejectionCases = []frameCase{
	// Rule 1: not JSON.
	{"parse/truncated", `{"jsonrpc":"2.0","id":7,"method":"m"`, replyParse},
	{"parse/garbage", `hello`, replyParse},
	{"parse/trailing-data", `{"jsonrpc":"2.0","id":7,"method":"m"} {}`, replyParse},
	{"parse/leading-zero-id", `{"jsonrpc":"2.0","id":07,"method":"m"}`, replyParse},
	{"parse/bad-escape", `{"jsonrpc":"2.0","id":7,"method":"\q"}`, replyParse},
	{"parse/invalid-in-params", `{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":tru}}`, replyParse},
	{"parse/trailing-comma", `{"jsonrpc":"2.0","id":7,"method":"m",}`, replyParse},
	// Rule 2: JSON but not an object.
	{"not-object/array", `[{"jsonrpc":"2.0","id":7,"method":"m"}]`, replyInvalidNull},
	{"not-object/number", `7`, replyInvalidNull},
	{"not-object/string", `"x"`, replyInvalidNull},
	{"not-object/null", `null`, replyInvalidNull},
	// Ambiguous duplicates (our rule, between 2 and 3).
	{"duplicate/id", `{"jsonrpc":"2.0","id":7,"id":8,"method":"m"}`, replyInvalidNull},
	{"duplicate/method", `{"jsonrpc":"2.0","id":7,"method":"m","method":"n"}`, replyInvalidNull},
	// Rule 3: jsonrpc.
	// A wrong or missing jsonrpc on a request with a valid id echoes the id
	// (PROTOCOL_DETAILS §11.1 StrictFrameViolations); on a response it is
	// never echoed.
	{"jsonrpc/missing-on-response", `{"id":7,"result":{}}`, replyInvalidNull},
	{"jsonrpc/missing", `{"id":7,"method":"m"}`, replyInvalidEcho7},
	{"jsonrpc/1.0", `{"jsonrpc":"1.0","id":7,"method":"m"}`, replyInvalidEcho7},
	{"jsonrpc/number", `{"jsonrpc":2.0,"id":7,"method":"m"}`, replyInvalidEcho7},
	{"jsonrpc/case", `{"JSONRPC":"2.0","id":7,"method":"m"}`, replyInvalidEcho7},
	// Rule 4: ids are integers; an invalid id is never echoed.
	{"id/string", `{"jsonrpc":"2.0","id":"7","method":"m"}`, replyInvalidNull},
	{"id/fraction", `{"jsonrpc":"2.0","id":7.5,"method":"m"}`, replyInvalidNull},
	{"id/float-integral", `{"jsonrpc":"2.0","id":7.0,"method":"m"}`, replyInvalidNull},
	{"id/exponent", `{"jsonrpc":"2.0","id":7e0,"method":"m"}`, replyInvalidNull},
	{"id/overflow", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"m"}`, replyInvalidNull},
	{"id/bool", `{"jsonrpc":"2.0","id":true,"method":"m"}`, replyInvalidNull},
	{"id/object", `{"jsonrpc":"2.0","id":{},"method":"m"}`, replyInvalidNull},
	{"id/null-request", `{"jsonrpc":"2.0","id":null,"method":"m"}`, replyInvalidNull},
	{"id/string-response", `{"jsonrpc":"2.0","id":"7","result":1}`, replyInvalidNull},
	// Rule 5: requests and notifications.
	{"method/number", `{"jsonrpc":"2.0","id":7,"method":5}`, replyInvalidEcho7},
	{"method/empty", `{"jsonrpc":"2.0","id":7,"method":""}`, replyInvalidEcho7},
	{"method/null", `{"jsonrpc":"2.0","id":7,"method":null}`, replyInvalidEcho7},
	{"request/with-result", `{"jsonrpc":"2.0","id":7,"method":"m","result":1}`, replyInvalidEcho7},
	{"request/with-error", `{"jsonrpc":"2.0","id":7,"method":"m","error":{"code":1,"message":"x"}}`, replyInvalidEcho7},
	{"params/array", `{"jsonrpc":"2.0","id":7,"method":"m","params":[1]}`, replyInvalidEcho7},
	{"params/null", `{"jsonrpc":"2.0","id":7,"method":"m","params":null}`, replyInvalidEcho7},
	{"params/string", `{"jsonrpc":"2.0","id":7,"method":"m","params":"x"}`, replyInvalidEcho7},
	{"params/number", `{"jsonrpc":"2.0","id":7,"method":"m","params":1}`, replyInvalidEcho7},
	{"notification/params-array", `{"jsonrpc":"2.0","method":"m","params":[]}`, replyInvalidNull},
	{"notification/method-number", `{"jsonrpc":"2.0","method":1}`, replyInvalidNull},
	// Rule 6: responses (the reply never echoes the peer's id).
	{"response/no-id", `{"jsonrpc":"2.0","result":1}`, replyInvalidNull},
	{"response/params", `{"jsonrpc":"2.0","id":7,"result":1,"params":{}}`, replyInvalidNull},
	{"response/neither", `{"jsonrpc":"2.0","id":7}`, replyInvalidNull},
	{"response/both", `{"jsonrpc":"2.0","id":7,"result":1,"error":{"code":1,"message":"x"}}`, replyInvalidNull},
	{"response/error-not-object", `{"jsonrpc":"2.0","id":7,"error":"boom"}`, replyInvalidNull},
	{"response/error-no-code", `{"jsonrpc":"2.0","id":7,"error":{"message":"x"}}`, replyInvalidNull},
	{"response/error-no-message", `{"jsonrpc":"2.0","id":7,"error":{"code":1}}`, replyInvalidNull},
	{"response/error-code-float", `{"jsonrpc":"2.0","id":7,"error":{"code":1.5,"message":"x"}}`, replyInvalidNull},
	{"response/error-message-number", `{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":2}}`, replyInvalidNull},
	{"response/result-null-id", `{"jsonrpc":"2.0","id":null,"result":1}`, replyInvalidNull},
	{"response/capitalised-method-is-unknown", `{"jsonrpc":"2.0","id":7,"Method":"m"}`, replyInvalidNull},
}

var acceptedCases = []frameCase{
	{"unknown-member", `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"a":1},"extra":[1,{"x":null}]}`, `{"jsonrpc":"2.0","id":3,"result":{"a":1}}`},
	{"member-order", `{"params":{"a":1},"method":"echo","id":3,"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":3,"result":{"a":1}}`},
	{"escaped-key", `{"jsonrpc":"2.0","\u0069d":3,"method":"echo","params":{}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
	{"escaped-version", `{"jsonrpc":"2\u002e0","id":3,"method":"echo"}`, `{"jsonrpc":"2.0","id":3,"result":null}`},
	{"no-params", `{"jsonrpc":"2.0","id":3,"method":"echo"}`, `{"jsonrpc":"2.0","id":3,"result":null}`},
	{"spaces-and-cr", " \t{ \"jsonrpc\" : \"2.0\" , \"id\" : 3 , \"method\" : \"echo\" , \"params\" : { } }\t \r", `{"jsonrpc":"2.0","id":3,"result":{ }}`},
	{"zero-id", `{"jsonrpc":"2.0","id":0,"method":"echo"}`, `{"jsonrpc":"2.0","id":0,"result":null}`},
	{"negative-id", `{"jsonrpc":"2.0","id":-4,"method":"echo"}`, `{"jsonrpc":"2.0","id":-4,"result":null}`},
	{"max-id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"echo"}`, `{"jsonrpc":"2.0","id":9223372036854775807,"result":null}`},
	{"html-not-escaped", `{"jsonrpc":"2.0","id":3,"method":"echo","params":{"a":"<&>"}}`, `{"jsonrpc":"2.0","id":3,"result":{"a":"<&>"}}`},
}
