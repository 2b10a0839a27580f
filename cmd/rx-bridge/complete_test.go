package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// sseServer answers chat-completions requests with the given SSE events
// (each flushed on its own), or with status and body when status != 200.
func sseServer(t *testing.T, status int, body string, events ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer cli-test-key-Q7" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		if status != http.StatusOK {
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, "data: "+e+"\n\n")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// writeHome makes a bridge home whose config.toml points one built-in
// provider at baseURL, and selects it through the environment.
func writeHome(t *testing.T, baseURL string) string {
	t.Helper()
	home := t.TempDir()
	cfg := `model = "local/coder"

[[providers.openai]]
name = "local"
base_url = "` + baseURL + `/v1"
api_key_env = "RX_CLI_TEST_KEY"
max_attempts = 1

[[providers.openai.models]]
id = "qwen2.5-coder"
ref_name = "coder"
display_name = "Qwen Coder"
context_window = 32768
tools = true
reasoning = true
efforts = ["low", "high"]
input_per_million = 1.0
output_per_million = 2.0
pricing_currency = "USD"
`
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("RX_BRIDGE_HOME", home)
	t.Setenv("RX_CLI_TEST_KEY", "cli-test-key-Q7")
	return home
}

var answerEvents = []string{
	`{"choices":[{"index":0,"delta":{"reasoning_content":"The user greets.\nAnswer briefly."}}]}`,
	`{"choices":[{"index":0,"delta":{"content":"Hello"}}]}`,
	`{"choices":[{"index":0,"delta":{"content":" there."}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":"{\"dir\""}}]}}]}`,
	`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":\".\"}"}}]}}]}`,
	`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":500,"total_tokens":1500}}`,
}

// TestCompleteEndToEnd drives `complete` through the dispatcher against a
// real SSE server. It sets the environment, so it cannot run in parallel.
func TestCompleteEndToEnd(t *testing.T) {
	srv := sseServer(t, http.StatusOK, "", answerEvents...)
	writeHome(t, srv.URL)

	var stdout, stderr bytes.Buffer
	code := run([]string{"complete", "--model", "local/coder", "--effort", "high", "hi"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	want := "[thinking] The user greets.\n" +
		"[thinking] Answer briefly.\n" +
		"Hello there.\n" +
		"[tool call] ls started (id call_1)\n" +
		"[tool call] ls({\"dir\":\".\"}) id call_1\n" +
		"[usage] prompt 1000 (cache hit 0, miss 1000), completion 500 (reasoning 0), total 1500, finish tool_calls, cost 0.002000 USD\n"
	if got := stdout.String(); got != want {
		t.Fatalf("stdout\n got %q\nwant %q", got, want)
	}
}

func TestCompleteJSON(t *testing.T) {
	srv := sseServer(t, http.StatusOK, "", answerEvents...)
	writeHome(t, srv.URL)

	var stdout, stderr bytes.Buffer
	if code := run([]string{"complete", "--json", "--model", "local/coder", "hi"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var ch extproto.ProviderChunk
		if err := json.Unmarshal([]byte(line), &ch); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if err := ch.Validate(); err != nil {
			t.Fatalf("line %q is not a valid chunk: %v", line, err)
		}
		types = append(types, string(ch.Type))
	}
	want := "reasoning text text tool_call_start tool_call_args_delta tool_call_args_delta tool_call usage done"
	if got := strings.Join(types, " "); got != want {
		t.Fatalf("chunk types\n got %s\nwant %s", got, want)
	}
}

func TestCompleteFailures(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		body       string
		args       []string
		wantCode   int
		wantStderr []string
		wantStdout string
	}{
		{name: "no model", args: []string{"complete", "hi"}, wantCode: 2, wantStderr: []string{"usage: rx-bridge complete"}},
		{name: "no prompt", args: []string{"complete", "--model", "local/coder"}, wantCode: 2, wantStderr: []string{"usage: rx-bridge complete"}},
		{name: "bad flag", args: []string{"complete", "--bogus"}, wantCode: 2},
		{name: "unknown ref", args: []string{"complete", "--model", "local/gpt-9", "hi"}, wantCode: 1,
			wantStderr: []string{`unknown model ref "local/gpt-9"; available: local/coder`}},
		{name: "undeclared effort", args: []string{"complete", "--model", "local/coder", "--effort", "max", "hi"}, wantCode: 1,
			wantStderr: []string{`has no effort "max"; it accepts low, high`}},
		{name: "server error", status: 500, body: `{"error":{"message":"model is loading"}}`, args: []string{"complete", "--model", "local/coder", "hi"}, wantCode: 1,
			wantStderr: []string{"HTTP 500 Internal Server Error (attempt 1 of 1): model is loading"}},
		{name: "server error as json", status: 503, body: `{"error":{"message":"overloaded"}}`, args: []string{"complete", "--json", "--model", "local/coder", "hi"}, wantCode: 1,
			wantStdout: `"type":"error"`, wantStderr: []string{"overloaded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := tt.status
			if status == 0 {
				status = http.StatusOK
			}
			srv := sseServer(t, status, tt.body, answerEvents...)
			writeHome(t, srv.URL)
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.wantCode, stderr.String())
			}
			for _, w := range tt.wantStderr {
				if !strings.Contains(stderr.String(), w) {
					t.Fatalf("stderr %q does not contain %q", stderr.String(), w)
				}
			}
			if !strings.Contains(stdout.String(), tt.wantStdout) {
				t.Fatalf("stdout %q does not contain %q", stdout.String(), tt.wantStdout)
			}
		})
	}
}
