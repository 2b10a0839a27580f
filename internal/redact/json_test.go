package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

var jsonCases = []redactCase{
	{"secret-keys", `{"apiKey":"abc","password":"hunter2","token":"t0k","Authorization":"Bearer xyz","client_secret":"s"}`,
		`{"apiKey":"[redacted]","password":"[redacted]","token":"[redacted]","Authorization":"[redacted]","client_secret":"[redacted]"}`},
	{"secret-key-long-value", `{"access_token":"ya29.a0AfH6SMBxyzabcdefgh"}`, `{"access_token":"[redacted]"}`},
	{"secret-key-number", `{"password":12345678,"pin":1234}`, `{"password":"[redacted]","pin":1234}`},
	{"secret-key-array", `{"api_keys":["a1","b2",3],"n":[1,2]}`, `{"api_keys":["[redacted]","[redacted]","[redacted]"],"n":[1,2]}`},
	{"secret-key-keeps-bool-null-empty", `{"token":null,"secret":true,"password":""}`, `{"token":null,"secret":true,"password":""}`},
	{"secret-key-nested-object-by-its-keys", `{"token":{"type":"bearer","value":"abc"}}`, `{"token":{"type":"bearer","value":"abc"}}`},
	{"secret-key-already-masked", `{"token":"[redacted]","apiKey":"****"}`, `{"token":"[redacted]","apiKey":"****"}`},
	{"text-rules-in-values", `{"message":"failed: api_key=abc123 and sk-abcdefghijklmnop1234"}`, `{"message":"failed: api_key=[redacted] and ****"}`},
	{"escaped-json-in-value", `{"body":"{\"token\":\"abc\"}"}`, `{"body":"{\"token\":\"[redacted]\"}"}`},
	{"escapes-kept-valid", `{"m":"line1\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz\t\"q\" \u00e9"}`, `{"m":"line1\nAuthorization: Bearer [redacted]\t\"q\" é"}`},
	{"key-that-is-a-token", `{"ghp_16C7e42F292c6912E7710c838347Ae178B4a":1}`, `{"****":1}`},
	{"pem-in-value", `{"key":"-----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----\n"}`, `{"key":"-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\n"}`},
	{"array-root", `[{"token":"a"},"sk-abcdefghijklmnop1234",1]`, `[{"token":"[redacted]"},"****",1]`},
	{"secret-array-ends", `{"tokens_list":[1],"token":["x"],"after":"y"}`, `{"tokens_list":[1],"token":["[redacted]"],"after":"y"}`},
	{"whitespace", "{ \"token\" : \"abc\" ,\n \"n\" : 1 }", "{ \"token\" : \"[redacted]\" ,\n \"n\" : 1 }"},
	{"not-json-falls-back", `{"token":"abc"`, `{"token":"[redacted]"`},
	{"not-json-text", "password=abc", "password=[redacted]"},
}

// jsonUnchanged are frames that must come back byte for byte.
var jsonUnchanged = []string{
	`{"jsonrpc":"2.0","id":5,"method":"extension/provider/stream/open","params":{"model":"fixed","providerRef":"plugin/leaky/fixed/v1","request":{"maxTokens":4096,"messages":[{"content":"You are a coding agent working in the workspace at /tmp/TestPlantedSecretsNeverReachUsers2383318875/002.","role":"system"}]},"streamId":"es_0a1b2c3d4e5f60718293a4b5"}}`,
	`{"jsonrpc":"2.0","method":"extension/provider/stream/chunk","params":{"chunk":{"type":"usage","usage":{"cacheHitTokens":0,"cacheMissTokens":0,"completionTokens":2,"finishReason":"stop","promptTokens":3,"reasoningTokens":0,"totalTokens":5}},"seq":2,"streamId":"es_0a1b2c3d4e5f60718293a4b5"}}`,
	`{"jsonrpc":"2.0","id":1,"result":{"name":"x","protocolVersion":"1","stateSchemaVersion":0,"version":"1"}}`,
	`{"a":[true,false,null,-1.5e3,0],"b":{},"c":[],"d":"","e":"é\u2028"}`,
	`"plain string"`,
	`12345678901234567890`,
	"error: exit status 1 (not JSON: redacted as text)",
}

func TestJSON(t *testing.T) {
	t.Parallel()
	r := New(fakeEnv)
	for _, tc := range jsonCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := string(r.JSON([]byte(tc.in)))
			if got != tc.want {
				t.Errorf("JSON(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if json.Valid([]byte(tc.in)) && !json.Valid([]byte(got)) {
				t.Errorf("invalid JSON out: %s", got)
			}
			if again := string(r.JSON([]byte(got))); again != got {
				t.Errorf("not idempotent: %s", again)
			}
		})
	}
	for _, in := range jsonUnchanged {
		b := []byte(in)
		if got := r.JSON(b); string(got) != in {
			t.Errorf("JSON changed an ordinary frame:\n in %s\nout %s", in, got)
		} else if &got[0] != &b[0] {
			t.Errorf("JSON copied an unchanged frame")
		}
	}
}

// TestJSONUnchangedDoesNotAllocate: an ordinary frame costs no
// allocation, or one (a buffer) when it has escapes.
func TestJSONUnchangedDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	r := New(fakeEnv)
	for _, in := range jsonUnchanged {
		b := []byte(in)
		want := 0.0
		if strings.Contains(in, `\`) {
			want = 1
		}
		if n := testing.AllocsPerRun(50, func() { _ = r.JSON(b) }); n != want {
			t.Errorf("JSON(%s): %v allocations, want %v", in, n, want)
		}
	}
}

func TestJSONEnvValues(t *testing.T) {
	t.Parallel()
	r := New(nil).With("correct horse battery staple")
	got := string(r.JSON([]byte(`{"m":"phrase \"correct horse battery staple\" used"}`)))
	if want := `{"m":"phrase \"[redacted]\" used"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestJSONStringEncoding(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\x7f", "é\u2028\u2029", "\xff\xfe", "<>&"} {
		enc := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Errorf("%q encodes to invalid JSON %s: %v", s, enc, err)
			continue
		}
		std, _ := json.Marshal(s)
		var want string
		_ = json.Unmarshal(std, &want)
		if back != want {
			t.Errorf("%q round trips to %q", s, back)
		}
	}
}
