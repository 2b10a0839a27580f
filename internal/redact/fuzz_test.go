package redact

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzSecrets are inserted whole, on a line of their own, into fuzzed text;
// the secret part must never appear in the output.
var fuzzSecrets = []struct{ insert, secret string }{
	{"sk-abcdef1234567890SECRETKEY", ""},
	{"sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", ""},
	{"sk-ant-api03-AbCdEf123456-GhIjKl789012_mn", ""},
	{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", ""},
	{"github_pat_11ABCDEFG0123456789_abcdefghijklmnop", ""},
	{"xoxb-123456789012-123456789012-AbCdEfGh", ""},
	{"AKIAIOSFODNN7EXAMPLE", ""},
	{"AIzaSyD-abcdefghijklmnopqrstuvwxyz12345", ""},
	{"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", ""},
	{"0123456789abcdef0123456789abcdef", ""},
	{"hunter2hunter2", ""},               // environment value
	{"correct horse battery staple", ""}, // environment value with spaces
	{"p@ss:w0rd=x;y", ""},                // environment value with separators
	{"api_key=Zx9PLAINpassword", "Zx9PLAINpassword"},
	{"password: hunter", "hunter"},
	{"Authorization: Bearer opaque.token-value", "opaque.token-value"},
	{"Cookie: sid=s3ss10n; theme=dark", "s3ss10n"},
	{"https://alice:wonder1and@example.com", "wonder1and"},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsecretbody\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEAsecretbody"},
}

// FuzzRedact checks, for arbitrary text with or without a known secret
// inserted: no panic; idempotence; the trigger scan never changes the
// result; the secret never survives; valid UTF-8 stays valid; output grows
// by at most the mask texts; Bytes agrees with String.
func FuzzRedact(f *testing.F) {
	none := uint8(255)
	for _, tc := range append(patternCases, referenceCases...) {
		f.Add(tc.in, none, "")
	}
	for _, s := range falsePositives {
		f.Add(s, none, "")
	}
	for i := range fuzzSecrets {
		f.Add("error:", uint8(i), "(exit status 1)")
		f.Add("token=", uint8(i), "")
		f.Add("**", uint8(i), "**")
	}
	f.Add("http://x", none, "@y")
	f.Add("http://token'abcdefghijklmnop/x@y", none, "")
	f.Add("a.b**c", none, "**d")
	f.Add("[redacted][redacted] ted][red** *[x]*abcdef a****b****c", none, "")
	// Values made of mask characters, which masks can rebuild.
	r := New(append(fakeEnv, "WEIRD_TOKEN=ted][red**", "ODD_SECRET=*[x]*abcdef", "STAR_KEY=a****b****c"))
	f.Fuzz(func(t *testing.T, prefix string, pick uint8, suffix string) {
		in, secret := prefix+suffix, ""
		if int(pick) < len(fuzzSecrets) {
			s := fuzzSecrets[pick]
			in = prefix + "\n" + s.insert + "\n" + suffix
			if secret = s.secret; secret == "" {
				secret = s.insert
			}
			if strings.Contains(prefix, secret) || strings.Contains(suffix, secret) {
				secret = ""
			}
		}
		out, rounds := r.redact(in)
		if rounds > 3 {
			t.Fatalf("%d rounds to a fixpoint:\n in %q\nout %q", rounds, in, out)
		}
		if again := r.String(out); again != out {
			t.Fatalf("not idempotent:\n in %q\nout %q\nagain %q", in, out, again)
		}
		if slow := r.slowString(in); slow != out {
			t.Fatalf("trigger scan changed the result:\n in %q\nout %q\nall passes %q", in, out, slow)
		}
		if secret != "" && strings.Contains(out, secret) {
			t.Fatalf("secret %q survived:\n in %q\nout %q", secret, in, out)
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid input:\n in %q\nout %q", in, out)
		}
		if len(out) > len(Redacted)*len(in) {
			t.Fatalf("output %d bytes from %d:\n in %q\nout %q", len(out), len(in), in, out)
		}
		if b := string(r.Bytes([]byte(in))); b != out {
			t.Fatalf("Bytes disagrees:\n in %q\nString %q\nBytes %q", in, out, b)
		}
	})
}

// FuzzJSON checks the structural redactor: valid JSON in is valid JSON
// out, with the same structure token for token (a number may only become
// "[redacted]", a string stays a string); redaction is idempotent; a
// known secret inserted as a string value never survives; and invalid
// JSON is redacted exactly as text.
func FuzzJSON(f *testing.F) {
	none := uint8(255)
	for _, tc := range jsonCases {
		f.Add(tc.in, none)
	}
	for _, s := range jsonUnchanged {
		f.Add(s, none)
		f.Add(s, uint8(3))
	}
	f.Add(`{"a":"\u0000\ud800x","token":[1,[2,{"b":"c"}]]}`, uint8(0))
	f.Add(`[]`, uint8(13))
	f.Add(`"\ud83d\ude00 \ud800\u0041 \udc00 \u00e9\/\b\f"`, none)
	r := New(append(fakeEnv, "WEIRD_TOKEN=ted][red**"))
	f.Fuzz(func(t *testing.T, doc string, pick uint8) {
		in, secret := []byte(doc), ""
		if int(pick) < len(fuzzSecrets) && json.Valid(in) {
			s := fuzzSecrets[pick]
			if secret = s.secret; secret == "" {
				secret = s.insert
			}
			v, _ := json.Marshal("error:\n" + s.insert + "\n")
			in = []byte(`{"x":` + doc + `,"m":` + string(v) + `}`)
			if strings.Contains(doc, secret) {
				secret = ""
			}
		}
		out := r.JSON(in)
		if !json.Valid(in) {
			if string(out) != r.String(string(in)) {
				t.Fatalf("invalid JSON not redacted as text:\n in %q\nout %q", in, out)
			}
			return
		}
		if in[0] == '"' && utf8.Valid(in) {
			var want string
			end, _ := stringEnd(in, 0)
			_ = json.Unmarshal(in[:end], &want)
			if got := string(appendUnquoted(nil, in[1:end-1])); got != want {
				t.Fatalf("string %s decodes to %q, want %q", in, got, want)
			}
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON out of valid JSON:\n in %s\nout %s", in, out)
		}
		if again := r.JSON(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\n in %s\nout %s\nagain %s", in, out, again)
		}
		if secret != "" && strings.Contains(string(out), secret) {
			t.Fatalf("secret %q survived:\n in %s\nout %s", secret, in, out)
		}
		sameShape(t, in, out)
	})
}

// sameShape compares the token streams of two valid JSON documents.
func sameShape(t *testing.T, in, out []byte) {
	t.Helper()
	a, b := json.NewDecoder(bytes.NewReader(in)), json.NewDecoder(bytes.NewReader(out))
	a.UseNumber()
	b.UseNumber()
	for {
		x, errA := a.Token()
		y, errB := b.Token()
		if errA != nil || errB != nil {
			if errA != errB {
				t.Fatalf("token streams end differently (%v, %v):\n in %s\nout %s", errA, errB, in, out)
			}
			return
		}
		switch x := x.(type) {
		case string:
			if _, ok := y.(string); !ok {
				t.Fatalf("string %q became %v:\n in %s\nout %s", x, y, in, out)
			}
		case json.Number:
			if y != x && y != Redacted {
				t.Fatalf("number %v became %v:\n in %s\nout %s", x, y, in, out)
			}
		default:
			if x != y {
				t.Fatalf("%v became %v:\n in %s\nout %s", x, y, in, out)
			}
		}
	}
}
