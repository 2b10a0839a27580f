package openai

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestServerMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		want string
	}{
		{name: "openai object", body: `{"error":{"message":"Rate limit reached","type":"requests"}}`, want: "Rate limit reached"},
		{name: "ollama string", body: `{"error":"model \"x\" not found"}`, want: `model "x" not found`},
		{name: "vllm message", body: `{"object":"error","message":"bad  model\nname","code":404}`, want: "bad model name"},
		{name: "fastapi detail", body: `{"detail":"Not Found"}`, want: "Not Found"},
		{name: "error object without message", body: `{"error":{"code":42}}`, want: `{"code":42}`},
		{name: "plain text", body: "upstream\n  timed out\n", want: "upstream timed out"},
		{name: "empty", body: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := serverMessage([]byte(tt.body)); got != tt.want {
				t.Fatalf("serverMessage(%q) = %q, want %q", tt.body, got, tt.want)
			}
		})
	}
}

// TestServerErrorIsCutAfterMasking: a long error body echoing the API key
// where the message is cut must not show the start of the key (found by
// FuzzErrorBody: the body was cut first, so the mask no longer matched).
func TestServerErrorIsCutAfterMasking(t *testing.T) {
	t.Parallel()
	p, err := New(Config{Name: "fz", BaseURL: "http://127.0.0.1:1/v1", APIKeyEnv: "K", Models: []ModelConfig{{ID: "m"}}},
		WithLookupEnv(func(string) (string, bool) { return "fz-0123456789abcdefKEY", true }))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, body, wantTail string }{
		{"key at the cut", strings.Repeat("x", maxServerMessage-10) + " fz-0123456789abcdefKEY", ""},
		{"runes", strings.Repeat("é", maxServerMessage), "é…"},
	} {
		msg := p.errorf(extproto.ReasonProviderFailed, serverMessage([]byte(tc.body)), "HTTP 400").Message
		server := strings.TrimPrefix(msg, `openai provider "fz": HTTP 400: `)
		if len(server) > maxServerMessage+len("…") || !strings.HasSuffix(server, tc.wantTail) {
			t.Errorf("%s: message ends %q, want %q (%d bytes)", tc.name, server[max(0, len(server)-20):], tc.wantTail, len(server))
		}
		if strings.Contains(msg, "fz-0123") || strings.ContainsRune(msg, utf8.RuneError) {
			t.Errorf("%s: %q", tc.name, msg)
		}
	}
}
