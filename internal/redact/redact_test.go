package redact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

type redactCase struct {
	name, in, want string
}

// patternCases cover every rule with the exact output.
var patternCases = []redactCase{
	// §10 observable.
	{"reference/api_key", "api_key=sk-abcdef1234567890SECRETKEY", "api_key=****"},

	// Step 1: URL userinfo.
	{"url/user-pass", "https://user:pass@example.com/x", "https://[redacted]@example.com/x"},
	{"url/password-only", "redis://:p4ss@localhost:6379/0", "redis://[redacted]@localhost:6379/0"},
	{"url/scheme-with-plus", "clone git+ssh://git@github.com/x.git", "clone git+ssh://[redacted]@github.com/x.git"},
	{"url/upper-case-scheme", "HTTPS://u:p@h", "HTTPS://[redacted]@h"},
	{"url/at-after-path", "see http://example.com/a@b", "see http://example.com/a@b"},

	// Step 2: key/value assignments.
	{"kv/api_key-short", "api_key=abc123", "api_key=[redacted]"},
	{"kv/api-key-colon", "API-KEY: abc", "API-KEY: [redacted]"},
	{"kv/apikey-split-by-separators", "API_K_EY=abcdefgh", "API_K_EY=[redacted]"},
	{"kv/access_token-long", "access_token=ya29.a0AfH6SMBxyz", "access_token=****"},
	{"kv/client_secret-quoted", "client_secret: 's3cr3t' ok", "client_secret: '[redacted]' ok"},
	{"kv/json", `{"api_key": "abcd1234", "model": "m"}`, `{"api_key": "[redacted]", "model": "m"}`},
	{"kv/json-escaped-in-string", `body: {\"token\":\"abc123\"}`, `body: {\"token\":\"[redacted]\"}`},
	{"kv/password-upper", "PASSWORD=hunter2 next", "PASSWORD=[redacted] next"},
	{"kv/passwd", "passwd=letmein", "passwd=[redacted]"},
	{"kv/underscore-pwd", "db_pwd=x1", "db_pwd=[redacted]"},
	{"kv/dash-pwd", "db-pwd: x1", "db-pwd: [redacted]"},
	{"kv/private-key", "private_key=abc", "private_key=[redacted]"},
	{"kv/aws-access-key-id", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "aws_access_key_id = ****"},
	{"kv/go-assignment", "token := abc", "token := [redacted]"},
	{"kv/value-ends-at-comma", "secret=abc,next=1", "secret=[redacted],next=1"},
	{"kv/value-ends-at-semicolon", "token=abc;x", "token=[redacted];x"},
	{"kv/value-13-chars", "token=abcdefghijklm", "token=****"},
	{"kv/value-12-chars", "token=abcdefghijkl", "token=[redacted]"},
	{"kv/value-12-runes-multibyte", "token=ééééééééééé1", "token=[redacted]"},
	{"kv/query-string", "GET /cb?code=1&access_token=abc&x=1 HTTP/1.1", "GET /cb?code=1&access_token=[redacted] HTTP/1.1"},
	{"kv/space-before-value", "token= next", "token= [redacted]"},
	{"kv/empty-value-newline", "token=\nnext", "token=\nnext"},
	{"kv/empty-value-quotes", `token="" x`, `token="" x`},
	{"kv/authorization-bearer", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123", "Authorization: Bearer [redacted]"},
	{"kv/authorization-basic", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "Authorization: Basic [redacted]"},
	{"kv/authorization-no-scheme", "authorization=xyz, next=1", "authorization=[redacted], next=1"},
	{"kv/authorization-short-bearer", "Authorization: Bearer abc", "Authorization: Bearer [redacted]"},
	{"kv/proxy-authorization", "Proxy-Authorization: Digest abc", "Proxy-Authorization: Digest [redacted]"},
	{"kv/x_authorization", "x_authorization=abc", "x_authorization=[redacted]"},
	{"kv/scheme-word-on-secret-key", "X-Auth-Token: token abc", "X-Auth-Token: token [redacted]"},
	{"kv/long-key-mask-even-if-long", "Authorization: sk-proj-abcdefghijklmnopqrstuvwxyz", "Authorization: [redacted]"},

	{"kv/curl-header", `curl -H "x-api-key: abc123" https://x`, `curl -H "x-api-key: [redacted]" https://x`},
	{"kv/aws-secret", "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key=****"},
	{"kv/env-dump-line", "ANTHROPIC_API_KEY=sk-ant-api03-AbCdEf123456", "ANTHROPIC_API_KEY=****"},

	// Step 3: cookies.
	{"cookie/request", "Cookie: session=abc123; theme=dark", "Cookie: session=[redacted]; theme=[redacted]"},
	{"cookie/set-cookie", "Set-Cookie: id=a3fWa; Path=/; HttpOnly", "Set-Cookie: id=[redacted]; Path=[redacted]; HttpOnly"},
	{"cookie/lower-case", "cookie=a=1", "cookie=a=[redacted]"},

	// Step 4: Bearer.
	{"bearer/prose", "sent Bearer abcdefghijklmnopqrstuvwxyz0123 upstream", "sent Bearer **** upstream"},
	{"bearer/lower-case", "bearer abc.def-ghi_jkl~mno+pqr/stu=", "bearer ****"},
	{"bearer/short-survives", "bearer abc", "bearer abc"},

	// Basic outside an assignment.
	{"basic/long", "header Basic dXNlcjpwYXNzd29yZA== sent", "header Basic **** sent"},
	{"basic/twelve", "Basic dXNlcjpwYXNz", "Basic [redacted]"},

	// Step 5: known token shapes.
	{"shape/openai", "key sk-abcdefghijklmnop1234 here", "key **** here"},
	{"shape/openai-proj", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "****"},
	{"shape/anthropic", "(sk-ant-api03-AbCdEf123456-GhIjKl789012_mn)", "(****)"},
	{"shape/rk", "rk-live-abcdefghijklmnop", "****"},
	{"shape/ghp", "ghp_16C7e42F292c6912E7710c838347Ae178B4a x", "**** x"},
	{"shape/gho", "gho_abcdefghijklmnopqrstuvwxyz", "****"},
	{"shape/ghu", "ghu_abcdefghijklmnopqrstuvwxyz", "****"},
	{"shape/ghs", "ghs_abcdefghijklmnopqrstuvwxyz", "****"},
	{"shape/ghr", "ghr_abcdefghijklmnopqrstuvwxyz", "****"},
	{"shape/github_pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", "****"},
	{"shape/slack-bot", "xoxb-123456789012-123456789012-AbCdEfGh", "****"},
	{"shape/slack-user", "xoxp-abcdefghijklmnopqrst", "****"},
	{"shape/slack-app", "xoxa-abcdefghijklmnopqrst", "****"},
	{"shape/aws", "id AKIAIOSFODNN7EXAMPLE; next", "id ****; next"},
	{"shape/aws-sts", "ASIAIOSFODNN7EXAMPLE", "****"},
	{"shape/google", "AIzaSyD-abcdefghijklmnopqrstuvwxyz12345", "****"},
	{"shape/jwt", "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok", "jwt **** ok"},
	{"shape/jwt-short", "eyJa.eyJ.sg", "[redacted]"},

	// Step 6: prose credentials.
	{"prose/token", "token abc123def456ghi", "token ****"},
	{"prose/api-key", "api key 0123456789abcdef", "api key ****"},
	{"prose/credentials-quoted", "credentials: 'abcdef123456789'", "credentials: '****'"},
	{"prose/plural-label", "tokens ABCDEFGHIJkl", "tokens ****"},
	{"prose/secret-mixed-case", "the secret is aBcDeFgHiJkLmN", "the secret is aBcDeFgHiJkLmN"},
	{"prose/secret-direct", "secret aBcDeFgHiJkLmN", "secret ****"},

	// Step 7: partially masked leftovers.
	{"leftover/both-sides", "key was sk-ab***wxyz", "key was ****"},
	{"leftover/four-stars", "sk-abc****", "****"},
	{"leftover/joined", "a**b**c", "****"},
	{"leftover/dotted", "v1.2****xyz", "****"},
	{"leftover/emphasis-before-period", "Run **Greet me**. Then **bye**.", "Run **Greet me**. Then **bye**."},
	{"leftover/emphasis-after-period", "e.g.**this** one", "e.g.**this** one"},
	{"leftover/stars-between-underscores", "key ab_**_cd", "key ****"},
	{"leftover/provider-partial-mask", `{"message":"Incorrect API key provided: sk-proj-abc***xyz"}`, `{"message":"Incorrect API key provided: ****"}`},

	// Step 8: opaque-token fallback.
	{"opaque/hex", "id 0123456789abcdef0123 done", "id **** done"},
	{"opaque/uuid", "req 550e8400-e29b-41d4-a716-446655440000", "req ****"},
	{"opaque/camel-case-random", "ReasonixExtensionManagerXq failed", "**** failed"},
	{"opaque/camel-case-digit", "ReasonixExtension2Manager failed", "**** failed"},
	{"opaque/hex-tag-too-long", "stream_0123456789abcdef0123", "****"},
	{"opaque/hex-tag-upper", "es_0123456789ABCDEF0123", "****"},
	{"opaque/tagged-not-hex", "es_0123456789abcdefg0123", "****"},
	{"opaque/session-id-upper-hex", "20261203T021500-3EF3F3BADFC7", "****"},
	{"opaque/session-id-long", "20261203T021500-3ef3f3badfc7aa", "****"},
	{"opaque/session-id-letters-in-time", "2026120XT021500-3ef3f3badfc7", "****"},
	{"opaque/url-path", "POST https://hooks.example.com/services/T0123ABCD/B0123ABCD/XyZ123abcDEF456ghiJKL", "POST https://hooks.example.com/services/T0123ABCD/B0123ABCD/****"},
	{"opaque/relative-path", "see build/XyZ123abcDEF456ghiJKL", "see build/****"},
	{"opaque/after-colon-slash", "key:/XyZ123abcDEF456ghiJKL", "key:/****"},
	{"opaque/path-keeps-shapes", "/home/u/ghp_16C7e42F292c6912E7710c838347Ae178B4a/x", "/home/u/****/x"},
	{"opaque/path-keeps-kv", "/tmp/x?token=XyZ123abcDEF456ghiJKL", "/tmp/x?token=****"},
	{"opaque/random-case", "aBcDeFgHiJkLmNoP", "****"},
	{"opaque/after-dot", "v1.ABCDEFGHIJKLMNOPq1", "****"},
	{"opaque/fifteen-survives", "abcdefghijklmn1", "abcdefghijklmn1"},

	// PEM private-key blocks.
	{"pem/rsa", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc+/=\n-----END RSA PRIVATE KEY-----\nafter",
		"key:\n-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----\nafter"},
	{"pem/pkcs8-with-headers", "-----BEGIN ENCRYPTED PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\n\r\nMIIB\r\n-----END ENCRYPTED PRIVATE KEY-----",
		"-----BEGIN ENCRYPTED PRIVATE KEY-----[redacted]-----END ENCRYPTED PRIVATE KEY-----"},
	{"pem/openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
		"-----BEGIN OPENSSH PRIVATE KEY-----[redacted]-----END OPENSSH PRIVATE KEY-----"},
	{"pem/pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nlQOYBF\n-----END PGP PRIVATE KEY BLOCK-----",
		"-----BEGIN PGP PRIVATE KEY BLOCK-----[redacted]-----END PGP PRIVATE KEY BLOCK-----"},
	{"pem/json-escaped", `"-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n"`,
		`"-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\n"`},
	{"pem/unterminated", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI\nstderr tail cut here",
		"-----BEGIN EC PRIVATE KEY-----[redacted]"},
	{"pem/two-blocks", "-----BEGIN PRIVATE KEY-----\na\n-----END PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----\nb\n-----END PRIVATE KEY-----",
		"-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY----- and -----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----"},
	{"pem/certificate-is-public", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----"},
	{"pem/truncated-head-lines-masked", "QyNTUxOQAAACBmb2J2ZXJ5c2VjcmV0\n-----END OPENSSH PRIVATE KEY-----",
		"****\n-----END OPENSSH PRIVATE KEY-----"},

	// Overlapping rules: the first rule in §10 order wins, nothing is
	// masked twice and nothing leaks.
	{"overlap/authorization-bearer-shape", "Authorization: Bearer sk-proj-abcdefghijklmnop1234", "Authorization: Bearer [redacted]"},
	{"overlap/userinfo-holds-token", "https://x:ghp_abcdefghijklmnopqrstuvwxyz@github.com", "https://[redacted]@github.com"},
	{"overlap/kv-holds-url", "redis_password=redis://user:pw@host:6379", "redis_password=****"},
	{"overlap/kv-then-prose", "api_key=sk-abcdefghijklmnop1234 token abc123def456ghi", "api_key=**** token ****"},
	{"overlap/bearer-in-cookie", "Cookie: token=Bearer", "Cookie: token=[redacted]"},
	{"overlap/leftover-next-to-mask", "xyz.Bearer abcdefghijklmnopqrstu", "xyz.Bearer ****"},
	{"overlap/shape-inside-word-run", "build_sk-abcdefghijklmnopq1_x", "****"},
	{"overlap/pem-holds-assignment", "-----BEGIN PRIVATE KEY-----\npassword=x\n-----END PRIVATE KEY-----",
		"-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----"},
}

// referenceCases are outputs that look surprising but are the reference
// host's rules applied as written; they are pinned so a change to them is
// deliberate.
var referenceCases = []redactCase{
	{"reference/key-contains-token", "access_token_id=4096", "access_token_id=[redacted]"},
	{"reference/password-colon-prose", "Password: reset", "Password: [redacted]"},
	{"reference/value-runs-to-space", "token=abc&foo=bar", "token=[redacted]"},
	{"reference/mask-eats-sentence-dot", "id AKIAIOSFODNN7EXAMPLE.", "id ****"},
	{"reference/sha-in-log", "commit 0123456789abcdef0123456789abcdef01234567", "commit ****"},
	{"reference/sk-prefixed-word", "use sk-learn-compatible-model", "use ****"},
	{"reference/python-power", "x**2", "****"},
}

// falsePositives are ordinary text that must come back unchanged.
var falsePositives = []string{
	"",
	"the token count is 5",
	"password reset flow",
	"Please check your API key configuration.",
	"token verification failed",
	"secret management is hard",
	"the access key rotation policy",
	"credentials management system",
	"authorization middleware rejected the request",
	"Bearer tokens are required",
	"basic setup complete",
	"Basic Authentication is enabled",
	"**Build failed** in 3 files",
	"***important*** and *emphasis*",
	"**v1.2** released",
	"**Note:** read this",
	"2 ** 10 = 1024",
	"x * y * z",
	"Internationalization settings are invalid",
	"Content-Security-Policy: default-src 'self'",
	"X-Content-Type-Options: nosniff",
	"MAX_BUFFER_SIZE_EXCEEDED",
	"file_name_without_digits_here",
	"error: exit status 1",
	"extension foo failed at before_tool_call: exit status 1",
	"see https://example.com/docs#section",
	"mail me at user@example.com",
	"the keyboard layout: us",
	"monkey business",
	"Asia/Tokyo",
	"eyJ",
	"sk-learn",
	"cookie policy: accept all",
	"set-cookie header missing",
	"PWD=/home/me/project",
	"model: gpt-4o, temperature=0.2",
	"goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d",
	"日本語のテキスト、パスワードなし",
	"-----BEGIN PUBLIC KEY-----",
	// Identifiers, numbers, paths and ids that are not credentials.
	"/stateSchemaVersion: required field missing",
	"ReasonixExtensionManager failed",
	"XMLHttpRequestUploadProgressEvent",
	"max_tokens=4096",
	"maxTokens: 4096",
	`{"maxTokens":4096,"promptTokens":12,"totalTokens":20}`,
	"tokenizer: cl100k_base",
	"workspace at /tmp/TestPlantedSecretsNeverReachUsers2383318875/002, inside",
	"open /tmp/TestX123/001/home/plugins/leaky-crash/reasonix-plugin.json: no such file",
	"uri file:///tmp/TestServeSession1234567890/001/notes.txt",
	"cd ~/src/Build2024Release8812345",
	"--dir=/var/tmp/go-build3375123456/b001/exe",
	"stream es_0a1b2c3d4e5f60718293a4b5 ended",
	`"streamId":"es_0a1b2c3d4e5f60718293a4b5"`,
	"session rx-0a1b2c3d4e5f",
	"session/load: unknown session 20261203T021500-3ef3f3badfc7",
}

func TestKeyKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		want keySensitivity
	}{
		{"Authorization", keyAuthorization},
		{"proxy-authorization", keyAuthorization},
		{"x_authorization", keyAuthorization},
		{"http.authorization", keyAuthorization},
		{"xauthorization", keyPlain},
		{"authorization_mode", keyPlain},
		{"api_key", keySecret},
		{"X-Api-Key", keySecret},
		{"apikey", keySecret},
		{"a_p-i_key", keySecret},
		{"aws_access_key_id", keySecret},
		{"private-key", keySecret},
		{"client_secret", keySecret},
		{"SECRET", keySecret},
		{"access_token", keySecret},
		{"max_tokens", keyPlain},
		{"maxTokens", keyPlain},
		{"promptTokens", keyPlain},
		{"tokenizer", keyPlain},
		{"token_count", keyPlain},
		{"tokenLimit", keyPlain},
		{"token", keySecret},
		{"tokenSecret", keySecret},
		{"refresh_token", keySecret},
		{"x-auth-token-value", keySecret},
		{"token_type", keySecret},
		{"password", keySecret},
		{"db_passwd", keySecret},
		{"DB_PWD", keySecret},
		{"db-pwd", keySecret},
		{"PWD", keyPlain},
		{"OLDPWD", keyPlain},
		{"pass", keyPlain},
		{"GPG_PASSPHRASE", keySecret},
		{"key", keyPlain},
		{"monkey", keyPlain},
		{"credentials", keyPlain},
		{"tok", keyPlain},
		{"", keyPlain},
	} {
		if got := keyKind(tc.key); got != tc.want {
			t.Errorf("keyKind(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
}

func TestPatterns(t *testing.T) {
	t.Parallel()
	var r Redactor
	for _, tc := range append(patternCases, referenceCases...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := r.String(tc.in)
			if got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if again := r.String(got); again != got {
				t.Errorf("not idempotent: String(%q) = %q", got, again)
			}
			if slow := r.slowString(tc.in); slow != got {
				t.Errorf("fast path disagrees: all passes give %q", slow)
			}
		})
	}
}

func TestFalsePositives(t *testing.T) {
	t.Parallel()
	var r Redactor
	for _, in := range falsePositives {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			if got := r.String(in); got != in {
				t.Errorf("String(%q) = %q, want it unchanged", in, got)
			}
			if slow := r.slowString(in); slow != in {
				t.Errorf("all passes give %q, want it unchanged", slow)
			}
		})
	}
}

// cleanTexts have no trigger at all: the scan alone rejects them.
var cleanTexts = []string{
	"",
	"error: exit status 1",
	"extension foo failed at before_tool_call: exit status 1",
	"goroutine 1 [running]:\nmain.main()\n\t/src/main.go:12 +0x1d",
	"mail me at user@example.com",
	"Internationalization settings are invalid",
	"model: gpt-4o, temperature=0.2",
	"MAX_BUFFER_SIZE_EXCEEDED",
	"x * y * z",
	"日本語のテキスト、パスワードなし",
}

// TestUnchangedDoesNotAllocate: a text with nothing to mask costs no
// allocation, whether the trigger scan rejects it at once or the passes
// have to look.
func TestUnchangedDoesNotAllocate(t *testing.T) {
	r := New([]string{"OPENAI_API_KEY=sk-abcdefghijklmnop1234"})
	for _, in := range cleanTexts {
		if bits := r.scan(in); bits != 0 {
			t.Errorf("scan(%q) = %#x, want 0", in, bits)
		}
	}
	for _, in := range append(falsePositives, cleanTexts...) {
		if n := testing.AllocsPerRun(100, func() { _ = r.String(in) }); n != 0 {
			t.Errorf("String(%q): %v allocations, want 0", in, n)
		}
		b := []byte(in)
		if n := testing.AllocsPerRun(100, func() { _ = r.Bytes(b) }); n != 0 {
			t.Errorf("Bytes(%q): %v allocations, want 0", in, n)
		}
	}
}

var fakeEnv = []string{
	"OPENAI_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t",
	"DB_PASSWORD=hunter2hunter2",
	"my_secret= correct horse battery staple ",
	"GITHUB_TOKEN=p@ss:w0rd=x;y",
	"SERVICE_PASSWD=short",        // under 8 bytes
	"PRIVATE_KEY=redacted",        // a mask would reproduce it
	"PLACEHOLDER_TOKEN=********",  // likewise
	"HOME=/home/me/very/long/dir", // name not secret
	"PWD=/home/me/project",        // working directory, not a password
	"PATH=/usr/bin:/bin",
	"noequals",
	"=C:=C:\\windows",
	"A_KEY=abcdefgh12",
	"B_KEY=gh12345678",
}

func TestEnvValues(t *testing.T) {
	t.Parallel()
	r := New(fakeEnv)
	for _, tc := range []redactCase{
		{"verbatim-short-word", "my pass is hunter2hunter2!", "my pass is [redacted]!"},
		{"inside-word", "xxhunter2hunter2xx", "xx[redacted]xx"},
		{"with-spaces-trimmed", "phrase: correct horse battery staple.", "phrase: [redacted]."},
		{"special-characters", "gh says p@ss:w0rd=x;y failed", "gh says [redacted] failed"},
		{"repeated", "hunter2hunter2/hunter2hunter2", "[redacted]/[redacted]"},
		{"overlapping-values-merge", "abcdefgh12345678", "[redacted]"},
		{"touching-values-merge", "hunter2hunter2hunter2hunter2", "[redacted]"},
		{"before-pattern-rules", "key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "key: [redacted]"},
		{"short-value-ignored", "short circuit", "short circuit"},
		{"non-secret-name-ignored", "cd /home/me/very/long/dir", "cd /home/me/very/long/dir"},
		{"pwd-ignored", "in /home/me/project", "in /home/me/project"},
		{"mask-text-value-ignored", "password=[redacted] ********", "password=[redacted] ****"},
		{"case-sensitive", "HUNTER2HUNTER2", "HUNTER2HUNTER2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := r.String(tc.in); got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.in, got, tc.want)
			}
			if got := r.String(tc.want); got != tc.want {
				t.Errorf("not idempotent: String(%q) = %q", tc.want, got)
			}
		})
	}
	if got, want := len(r.secrets), 6; got != want {
		t.Errorf("New kept %d secrets %q, want %d", got, r.secrets, want)
	}
}

func TestEnvValuesSurvivePlainRedactor(t *testing.T) {
	t.Parallel()
	var r Redactor
	if got := r.String("my pass is hunter2hunter2!"); got != "my pass is hunter2hunter2!" {
		t.Errorf("zero Redactor masked an unknown word: %q", got)
	}
	var nilR *Redactor
	if got := nilR.String("api_key=abc"); got != "api_key=[redacted]" {
		t.Errorf("nil Redactor: %q", got)
	}
}

func TestDefaultUsesProcessEnvironment(t *testing.T) {
	t.Parallel()
	in := "x " + strings.Join(os.Environ(), " ") + " token=abc"
	if got, want := String(in), New(os.Environ()).String(in); got != want {
		t.Errorf("String and New(os.Environ()).String disagree:\n%q\n%q", got, want)
	}
}

func TestBytes(t *testing.T) {
	t.Parallel()
	var r Redactor
	clean := []byte("nothing to see here")
	if got := r.Bytes(clean); &got[0] != &clean[0] || len(got) != len(clean) {
		t.Error("Bytes copied a clean input")
	}
	dirty := []byte("token=abc")
	if got := string(r.Bytes(dirty)); got != "token=[redacted]" {
		t.Errorf("Bytes = %q", got)
	}
	if string(dirty) != "token=abc" {
		t.Errorf("Bytes modified its input: %q", dirty)
	}
	if got := r.Bytes(nil); got != nil {
		t.Errorf("Bytes(nil) = %q", got)
	}
	if got := string(Bytes([]byte("password: x"))); got != "password: [redacted]" {
		t.Errorf("package Bytes = %q", got)
	}
}

func TestErr(t *testing.T) {
	t.Parallel()
	var r Redactor
	if r.Err(nil) != nil {
		t.Error("Err(nil) != nil")
	}
	clean := errors.New("exit status 1")
	if r.Err(clean) != clean {
		t.Error("Err wrapped an error with nothing to mask")
	}
	cause := fmt.Errorf("spawn: api_key=abc: %w", fs.ErrNotExist)
	err := r.Err(cause)
	if got, want := err.Error(), "spawn: api_key=[redacted] file does not exist"; got != want {
		t.Errorf("Err message %q, want %q", got, want)
	}
	if !errors.Is(err, fs.ErrNotExist) || errors.Unwrap(err) != cause {
		t.Error("redacted error does not unwrap to its cause")
	}
	if got := Err(cause).Error(); strings.Contains(got, "abc") {
		t.Errorf("package Err leaked: %q", got)
	}
}

func TestIdempotentOnOwnOutput(t *testing.T) {
	t.Parallel()
	r := New(fakeEnv)
	all := []string{strings.Repeat("*", 9), "[redacted]****", "****[redacted]", "a****b", "*****.****", "Bearer ****"}
	for _, tc := range patternCases {
		all = append(all, tc.in, tc.want)
	}
	all = append(all, strings.Join(all, " "), strings.Join(all, ""))
	for _, in := range all {
		once := r.String(in)
		if twice := r.String(once); twice != once {
			t.Errorf("String(%q) = %q, but String of that = %q", in, once, twice)
		}
	}
}

// slowString is String with the trigger scan assumed to have found every
// pass: the fast path must never change a result.
func (r *Redactor) slowString(s string) string {
	for range maxRounds {
		t, changed := r.apply(s, ^uint16(0))
		if !changed {
			return s
		}
		s = t
	}
	return s
}

func TestWith(t *testing.T) {
	t.Parallel()
	base := New(fakeEnv)
	r := base.With("marmalade-sandwich-express", " padded-value-here ", "true", "1", "hunter2hunter2", "********")
	if got, want := len(r.secrets), len(base.secrets)+2; got != want {
		t.Errorf("With kept %d secrets %q, want %d", got, r.secrets, want)
	}
	if got := r.String("dsn marmalade-sandwich-express, padded-value-here, true 1"); got != "dsn [redacted], [redacted], true 1" {
		t.Errorf("String = %q", got)
	}
	if base.With("short", "hunter2hunter2") != base {
		t.Error("With of nothing new made a new Redactor")
	}
	if got := base.String("marmalade-sandwich-express"); got != "marmalade-sandwich-express" {
		t.Errorf("With changed its receiver: %q", got)
	}
}

var addSecretsRuns atomic.Int32

// TestAddSecrets: values given to AddSecrets are masked by the default
// Redactor from then on, in text and in JSON.
func TestAddSecrets(t *testing.T) {
	t.Parallel()
	// A value of its own per run: AddSecrets keeps what an earlier run
	// (go test -count=2) added to the process-wide Redactor.
	// Same length each run, so no run's value holds an earlier one.
	n := addSecretsRuns.Add(1)
	v := fmt.Sprintf("tangerine-umbrella-orchestra-%c%c", 'a'+n/26%26, 'a'+n%26)
	if got := String("x " + v); got != "x "+v {
		t.Fatalf("masked before AddSecrets: %q", got)
	}
	AddSecrets(v, "no")
	if got := String("x " + v); got != "x [redacted]" {
		t.Errorf("String after AddSecrets = %q", got)
	}
	if got := string(JSON([]byte(`{"m":"` + v + `"}`))); got != `{"m":"[redacted]"}` {
		t.Errorf("JSON after AddSecrets = %s", got)
	}
	if got := String("no"); got != "no" {
		t.Errorf("a short value was added: %q", got)
	}
}

// TestWithIdentifiers: a value equal to an identifier is not masked,
// whether it was learned before or after the identifier; a secret that
// only contains the identifier still is.
func TestWithIdentifiers(t *testing.T) {
	t.Parallel()
	r := New([]string{"MY_TOKEN=myplugin-name"}).WithIdentifiers("myplugin-name", "  /tmp/plugins/myplugin-name ")
	r = r.With("/tmp/plugins/myplugin-name", "myplugin-name-secret-1")
	got := r.String("plugin myplugin-name at /tmp/plugins/myplugin-name: myplugin-name-secret-1")
	if want := "plugin myplugin-name at /tmp/plugins/myplugin-name: [redacted]"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if r.WithIdentifiers("myplugin-name", "short") != r {
		t.Error("WithIdentifiers of nothing new made a new Redactor")
	}
	if New([]string{"MY_TOKEN=myplugin-name"}).String("myplugin-name") != "[redacted]" {
		t.Error("an identifier of one Redactor is exempt in another")
	}
}

// TestKnownSecrets: only the verbatim values are masked; the pattern
// rules do not run, so ids that are data stay.
func TestKnownSecrets(t *testing.T) {
	t.Parallel()
	r := New(nil).With("planted-value-0042")
	in := "commit 3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345 token=abcDEF123456ghiJKL planted-value-0042planted-value-0042"
	want := "commit 3f2a9c1b7e4d5f60718293a4b5c6d7e8f9012345 token=abcDEF123456ghiJKL [redacted]"
	if got := r.KnownSecrets(in); got != want {
		t.Errorf("KnownSecrets = %q, want %q", got, want)
	}
	if s := "nothing here"; r.KnownSecrets(s) != s {
		t.Error("KnownSecrets changed clean text")
	}
	if got := (*Redactor)(nil).KnownSecrets(in); got != in {
		t.Errorf("nil KnownSecrets = %q", got)
	}
}

func TestSecretArgs(t *testing.T) {
	t.Parallel()
	got := SecretArgs([]string{"-y", "server", "--api-key", "v1", "--token=v2", "DB_PASSWORD=v3", "--verbose", "x", "--key"})
	if want := []string{"v1", "v2", "v3"}; !slices.Equal(got, want) {
		t.Errorf("SecretArgs = %q, want %q", got, want)
	}
}
