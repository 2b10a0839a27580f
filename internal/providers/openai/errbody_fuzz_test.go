package openai

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// fuzzKey is the API key of FuzzErrorBody's provider.
const fuzzKey = "fz-0123456789abcdefKEY"

// FuzzErrorBody feeds arbitrary bytes as the body of an HTTP error
// response, read and worded exactly as Stream does. The error must be
// bounded, on one line, valid UTF-8 when the body is, and must never show
// the API key, nor a piece of it, when the server echoes it back.
func FuzzErrorBody(f *testing.F) {
	for _, seed := range []string{
		`{"error":{"message":"Rate limit reached","type":"requests"}}`,
		`{"error":"model \"x\" not found"}`,
		`{"object":"error","message":"bad  model\nname","code":404}`,
		`{"detail":"Not Found"}`,
		`{"detail":[{"loc":["body","model"],"msg":"field required"}]}`,
		`{"error":{"code":42}}`,
		"<html><body><h1>502 Bad Gateway</h1></body></html>\n",
		"upstream\n  timed out\n",
		`{"error":{"message":"Incorrect API key provided: ` + fuzzKey + `"}}`,
		strings.Repeat("é", maxServerMessage-8) + " Bearer " + fuzzKey,
		strings.Repeat("x", maxServerMessage-10) + " " + fuzzKey,
		"",
		"\xff\xfe{",
	} {
		f.Add([]byte(seed))
	}
	p, err := New(Config{Name: "fz", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "FZ_KEY", Models: []ModelConfig{{ID: "m"}}},
		WithLookupEnv(func(string) (string, bool) { return fuzzKey, true }))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		server := readErrorBody(bytes.NewReader(body))
		e := p.errorf(extproto.ReasonProviderFailed, server, "fz/m: HTTP 400 Bad Request (attempt 1 of 1)")
		msg := e.Message
		const prefix = `openai provider "fz": fz/m: HTTP 400 Bad Request (attempt 1 of 1)`
		if !strings.HasPrefix(msg, prefix) {
			t.Fatalf("message %q lost its own description", msg)
		}
		if len(msg) > len(prefix)+len(": ")+maxServerMessage+len("…") {
			t.Fatalf("message of %d bytes for a %d-byte body", len(msg), len(body))
		}
		if strings.ContainsAny(msg, "\r\n") {
			t.Fatalf("message spans lines: %q", msg)
		}
		if utf8.Valid(body) && !utf8.ValidString(msg) {
			t.Fatalf("invalid UTF-8 from a valid body: %q", msg)
		}
		// A piece of the key is a leak when the body held the key and the
		// piece is not in what remains of the body without it.
		if bytes.Contains(body, []byte(fuzzKey)) {
			rest := bytes.ReplaceAll(body, []byte(fuzzKey), nil)
			for n := 6; n <= len(fuzzKey); n++ {
				if piece := fuzzKey[:n]; strings.Contains(msg, piece) && !bytes.Contains(rest, []byte(piece)) {
					t.Fatalf("message shows %q of the API key: %q", piece, msg)
				}
			}
		}
	})
}
