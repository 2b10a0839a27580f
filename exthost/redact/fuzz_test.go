package redact

import (
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
