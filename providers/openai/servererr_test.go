package openai

import (
	"strings"
	"testing"
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

func TestServerMessageTruncates(t *testing.T) {
	t.Parallel()
	got := serverMessage([]byte(strings.Repeat("é", maxServerMessage)))
	if len(got) > maxServerMessage+len("…") || !strings.HasSuffix(got, "…") {
		t.Fatalf("not truncated on a rune boundary: len %d", len(got))
	}
	if !strings.HasPrefix(got, "é") || strings.ContainsRune(got, '\uFFFD') {
		t.Fatalf("cut inside a rune: %q", got[len(got)-8:])
	}
}
