package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

func TestStreamOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		replies    []reply
		ref        string
		wantTypes  string
		wantText   string
		wantCalls  []extproto.ProviderToolCall
		wantUsage  *extproto.ProviderUsage
		wantErr    []string
		wantReason extproto.Reason
		// openErr: the failure comes from Stream itself, not from Next.
		openErr   bool
		wantTries int
		wantSlept []time.Duration
	}{
		{
			name: "text with usage",
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"Hello"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":", world"}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3,"total_tokens":12,"prompt_tokens_details":{"cached_tokens":4}}}`,
			}, done: true}},
			wantTypes: "text text usage done",
			wantText:  "Hello, world",
			wantUsage: &extproto.ProviderUsage{PromptTokens: 9, CompletionTokens: 3, TotalTokens: 12, CacheHitTokens: 4, CacheMissTokens: 5, FinishReason: "stop"},
			wantTries: 1,
		},
		{
			name: "reasoning then text",
			ref:  "local/r1",
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think."}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"42"},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":20,"total_tokens":25,"completion_tokens_details":{"reasoning_tokens":18}}}`,
			}, done: true}},
			wantTypes: "reasoning text usage done",
			wantText:  "42",
			wantUsage: &extproto.ProviderUsage{PromptTokens: 5, CompletionTokens: 20, TotalTokens: 25, CacheMissTokens: 5, ReasoningTokens: 18, FinishReason: "stop"},
			wantTries: 1,
		},
		{
			name:      "tool calls across many deltas",
			replies:   []reply{{events: toolCallEvents(), done: true}},
			wantTypes: "tool_call_start " + strings.Repeat("tool_call_args_delta ", 12) + "tool_call_start " + strings.Repeat("tool_call_args_delta ", 4) + "tool_call tool_call done",
			wantCalls: []extproto.ProviderToolCall{
				{ID: "call_1", Name: "read_file", Arguments: `{"path":"src/main.go","limit":200}`},
				{ID: "call_2", Name: "grep", Arguments: `{"q":"TODO"}`},
			},
			wantTries: 1,
		},
		{
			name: "429 then success honours Retry-After",
			replies: []reply{
				{status: 429, header: map[string]string{"Retry-After": "2"}, body: `{"error":{"message":"slow down"}}`},
				{events: []string{`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`}, done: true},
			},
			wantTypes: "text done",
			wantText:  "ok",
			wantTries: 2,
			wantSlept: []time.Duration{2 * time.Second},
		},
		{
			name: "503 then 502 then success backs off exponentially",
			replies: []reply{
				{status: 503, body: "busy"},
				{status: 502, body: "bad gateway"},
				{events: []string{`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`}, done: true},
			},
			wantTypes: "text done",
			wantText:  "ok",
			wantTries: 3,
			wantSlept: []time.Duration{250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name:       "500 exhausts retries with the server's message",
			replies:    []reply{{status: 500, body: `{"error":{"message":"CUDA out of memory","type":"server_error"}}`}},
			openErr:    true,
			wantErr:    []string{`openai provider "local": local/qwen2.5-coder: POST `, "/v1/chat/completions: HTTP 500 Internal Server Error (attempt 3 of 3): CUDA out of memory"},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  3,
			wantSlept:  []time.Duration{250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name:       "400 is not retried",
			replies:    []reply{{status: 400, body: `{"error":"model \"qwen2.5-coder\" not found, try pulling it first"}`}},
			openErr:    true,
			wantErr:    []string{"HTTP 400 Bad Request (attempt 1 of 3)", `model "qwen2.5-coder" not found, try pulling it first`},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  1,
		},
		{
			name:       "Retry-After beyond the cap is not waited for",
			replies:    []reply{{status: 429, header: map[string]string{"Retry-After": "3600"}, body: "quota"}},
			openErr:    true,
			wantErr:    []string{"the server asks to retry after 1h0m0s, longer than the 30s this provider waits: quota"},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  1,
		},
		{
			name: "connection dropped before any byte is retried",
			replies: []reply{
				{noWrite: true},
				{events: []string{`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`}, done: true},
			},
			wantTypes: "text done",
			wantText:  "ok",
			wantTries: 2,
			wantSlept: []time.Duration{250 * time.Millisecond},
		},
		{
			name:       "connection dropped on every try",
			replies:    []reply{{noWrite: true}},
			openErr:    true,
			wantErr:    []string{"(attempt 3 of 3)"},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  3,
			wantSlept:  []time.Duration{250 * time.Millisecond, 500 * time.Millisecond},
		},
		{
			name: "mid-stream cut is interrupted and never retried",
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"lo"}}]}`,
			}, raw: `data: {"choices":[{"ind`, abort: true}},
			wantTypes:  "text text",
			wantText:   "Hello",
			wantErr:    []string{"local/qwen2.5-coder: the stream was cut after 2 chunks"},
			wantReason: extproto.ReasonProviderInterrupted,
			wantTries:  1,
		},
		{
			name:       "closed without finishing is interrupted",
			replies:    []reply{{events: []string{`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`}}},
			wantTypes:  "text",
			wantText:   "Hel",
			wantErr:    []string{"closed the stream before the response was finished"},
			wantReason: extproto.ReasonProviderInterrupted,
			wantTries:  1,
		},
		{
			name: "malformed data is a clear failure",
			replies: []reply{{events: []string{
				`{"choices":[{"index":0,"delta":{"content":"a"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"b"}}]`,
			}, done: true}},
			wantTypes:  "text",
			wantText:   "a",
			wantErr:    []string{`local/qwen2.5-coder: malformed stream event (invalid JSON at byte 48): {"choices":[{"index":0,"delta":{"content":"b"}}]`},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  1,
		},
		{
			name:       "JSON instead of a stream",
			replies:    []reply{{header: map[string]string{"Content-Type": "application/json"}, raw: `{"choices":[{"message":{"content":"hi"}}]}`}},
			openErr:    true,
			wantErr:    []string{"answered with JSON instead of an event stream"},
			wantReason: extproto.ReasonProviderFailed,
			wantTries:  1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, tt.replies...)
			p, slept := newTestProvider(t, fs, nil)
			ref := tt.ref
			if ref == "" {
				ref = "local/qwen2.5-coder"
			}
			var chunks []extproto.ProviderChunk
			s, err := p.Stream(context.Background(), userRequest(ref, "hi"))
			if (err != nil) != tt.openErr {
				t.Fatalf("Stream error = %v, want error: %v", err, tt.openErr)
			}
			if err == nil {
				chunks, err = drain(t, s)
			}
			checkErr(t, err, tt.wantErr, tt.wantReason)
			if got := chunkTypes(chunks); got != strings.TrimSpace(tt.wantTypes) {
				t.Errorf("chunk types = %q\n            want %q", got, strings.TrimSpace(tt.wantTypes))
			}
			var a providers.Assembler
			for _, ch := range chunks {
				if err := ch.Validate(); err != nil {
					t.Fatalf("invalid chunk %+v: %v", ch, err)
				}
				if err := a.Add(ch); err != nil {
					t.Fatal(err)
				}
			}
			resp := a.Response()
			if resp.Text != tt.wantText {
				t.Errorf("text = %q, want %q", resp.Text, tt.wantText)
			}
			if len(tt.wantCalls) > 0 && !reflect.DeepEqual(resp.ToolCalls, tt.wantCalls) {
				t.Errorf("tool calls = %+v\nwant %+v", resp.ToolCalls, tt.wantCalls)
			}
			if tt.wantUsage != nil && !reflect.DeepEqual(resp.Usage, tt.wantUsage) {
				t.Errorf("usage = %+v, want %+v", resp.Usage, tt.wantUsage)
			}
			if n := len(fs.requests()); n != tt.wantTries {
				t.Errorf("server saw %d requests, want %d", n, tt.wantTries)
			}
			if !reflect.DeepEqual(*slept, tt.wantSlept) && (len(*slept) != 0 || len(tt.wantSlept) != 0) {
				t.Errorf("retry pauses = %v, want %v", *slept, tt.wantSlept)
			}
		})
	}
}

func checkErr(t *testing.T, err error, want []string, reason extproto.Reason) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want one containing %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Fatalf("error %q\ndoes not contain %q", err, w)
		}
	}
	if got := extproto.ReasonOf(err); got != reason {
		t.Fatalf("reason = %q, want %q (error %v)", got, reason, err)
	}
}

// toolCallEvents streams two calls the way OpenAI does: the header delta,
// then the arguments a few characters at a time.
func toolCallEvents() []string {
	delta := func(idx int, fields string) string {
		return `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":` + string(rune('0'+idx)) + `,` + fields + `}]}}]}`
	}
	args := func(idx int, s string) string {
		b, _ := json.Marshal(s)
		return delta(idx, `"function":{"arguments":`+string(b)+`}`)
	}
	ev := []string{delta(0, `"id":"call_1","type":"function","function":{"name":"read_file","arguments":""}`)}
	for _, part := range []string{`{"`, `pa`, `th`, `":`, `"src`, `/main`, `.go`, `",`, `"li`, `mit`, `":2`, `00}`} {
		ev = append(ev, args(0, part))
	}
	ev = append(ev, delta(1, `"id":"call_2","type":"function","function":{"name":"grep","arguments":""}`))
	for _, part := range []string{`{"q`, `":"`, `TODO`, `"}`} {
		ev = append(ev, args(1, part))
	}
	return append(ev, `{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
}

// TestRequestOnTheWire checks what the server receives: endpoint, headers,
// the key as Bearer, and the body mapping of messages, tools and effort.
func TestRequestOnTheWire(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true})
	p, _ := newTestProvider(t, fs, nil)
	temp := 0.0
	req := providers.Request{Ref: "local/r1", Model: "Deep/R1", Effort: "high", Body: extproto.ProviderRequest{
		MaxTokens:      256,
		Temperature:    &temp,
		ResponseFormat: &extproto.ProviderResponseFormat{Type: "json_object"},
		Messages: []extproto.ProviderMessage{
			{Role: extproto.RoleSystem, Content: "be brief"},
			{Role: extproto.RoleUser, Content: "list files"},
			{Role: extproto.RoleAssistant, ReasoningContent: "use ls", ToolCalls: []extproto.ProviderToolCall{{ID: "c1", Name: "ls", Arguments: `{"dir":"."}`}}},
			{Role: extproto.RoleTool, ToolCallID: "c1", Content: "a.go\nb.go"},
		},
		Tools: []extproto.ProviderToolSchema{},
	}}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, s); err != nil {
		t.Fatal(err)
	}
	got := fs.requests()[0]
	if h := got.header.Get("Authorization"); h != "Bearer "+testKey {
		t.Errorf("Authorization = %q", h)
	}
	if h := got.header.Get("X-Title"); h != "rx-bridge-test" {
		t.Errorf("X-Title = %q", h)
	}
	want := `{"max_tokens":256,"messages":[{"content":"be brief","role":"system"},{"content":"list files","role":"user"},` +
		`{"content":null,"reasoning_content":"use ls","role":"assistant","tool_calls":[{"function":{"arguments":"{\"dir\":\".\"}","name":"ls"},"id":"c1","type":"function"}]},` +
		`{"content":"a.go\nb.go","role":"tool","tool_call_id":"c1"}],` +
		`"model":"Deep/R1","reasoning_effort":"high","response_format":{"type":"json_object"},"stream":true,"stream_options":{"include_usage":true},"temperature":0}`
	if b, _ := json.Marshal(got.body); string(b) != want {
		t.Errorf("body\n got %s\nwant %s", b, want)
	}
}

// TestConfiguredDefaultEffort: with no effort chosen, the server's
// configured default_effort is sent (the catalog passes none on).
func TestConfiguredDefaultEffort(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true})
	p, _ := newTestProvider(t, fs, nil)
	s, err := p.Stream(context.Background(), userRequest("local/r1", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, s); err != nil {
		t.Fatal(err)
	}
	if got := fs.requests()[0].body["reasoning_effort"]; got != "low" {
		t.Errorf("reasoning_effort = %v, want the configured default low", got)
	}
}

func TestRequestToolsAndImages(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true})
	p, _ := newTestProvider(t, fs, nil)
	req := userRequest("local/qwen2.5-coder", "what is this?")
	req.Body.Messages[0].Images = []string{"data:image/png;base64,iVBORw0KGgo="}
	req.Body.Tools = []extproto.ProviderToolSchema{{Name: "ls", Description: "list a directory", Parameters: json.RawMessage(`{"type":"object","properties":{"dir":{"type":"string"}}}`)}}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(t, s); err != nil {
		t.Fatal(err)
	}
	body := fs.requests()[0].body
	msgs, _ := json.Marshal(body["messages"])
	if want := `[{"content":[{"text":"what is this?","type":"text"},{"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="},"type":"image_url"}],"role":"user"}]`; string(msgs) != want {
		t.Errorf("messages\n got %s\nwant %s", msgs, want)
	}
	tools, _ := json.Marshal(body["tools"])
	if want := `[{"function":{"description":"list a directory","name":"ls","parameters":{"properties":{"dir":{"type":"string"}},"type":"object"}},"type":"function"}]`; string(tools) != want {
		t.Errorf("tools\n got %s\nwant %s", tools, want)
	}
	if _, ok := body["reasoning_effort"]; ok {
		t.Error("reasoning_effort sent for a model without efforts")
	}
}

// TestRefusesWhatTheModelLacks: capabilities the config does not declare
// are an error before any request, never silently dropped.
func TestRefusesWhatTheModelLacks(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{status: 500})
	p, _ := newTestProvider(t, fs, nil)
	withTools := userRequest("local/r1", "x")
	withTools.Body.Tools = []extproto.ProviderToolSchema{{Name: "ls", Parameters: json.RawMessage(`{}`)}}
	withImage := userRequest("local/r1", "x")
	withImage.Body.Messages[0].Images = []string{"https://example.com/a.png"}
	withEffort := userRequest("local/qwen2.5-coder", "x")
	withEffort.Effort = "high"
	tests := []struct {
		name string
		req  providers.Request
		want string
	}{
		{"tools", withTools, `model "Deep/R1" is not configured for tools`},
		{"images", withImage, `model "Deep/R1" is not configured for images`},
		{"effort", withEffort, `model "qwen2.5-coder" takes no reasoning effort`},
		{"unknown ref", userRequest("local/nope", "x"), `does not serve "local/nope"`},
		{"invalid body", providers.Request{Ref: "local/r1"}, "invalid request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Stream(context.Background(), tt.req)
			checkErr(t, err, []string{tt.want}, extproto.ReasonProviderFailed)
		})
	}
	if n := len(fs.requests()); n != 0 {
		t.Fatalf("server saw %d requests", n)
	}
}

// TestAPIKeyNeverInErrors plants the key in the server's error body, in
// the common sk- shape and in a shape no generic redactor recognises.
func TestAPIKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	for _, key := range []string{testKey, "sk-proj-AbCdEf0123456789GhIjKl", "plainlowercasekeyword"} {
		t.Run(key[:4], func(t *testing.T) {
			t.Parallel()
			fs := newFakeServer(t, reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + key + `. Header was Authorization: Bearer ` + key + `"}}`})
			p, _ := newTestProvider(t, fs, nil)
			p.lookup = func(string) (string, bool) { return key, true }
			_, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), key) {
				t.Fatalf("key leaked: %v", err)
			}
			if !strings.Contains(err.Error(), "HTTP 401 Unauthorized") || !strings.Contains(err.Error(), "Incorrect API key provided") {
				t.Fatalf("error does not say what the server answered: %v", err)
			}
			if got := fs.requests()[0].header.Get("Authorization"); got != "Bearer "+key {
				t.Fatalf("Authorization = %q", got)
			}
		})
	}
}

func TestAPIKeyHeaderAndMissingKey(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true})
	p, _ := newTestProvider(t, fs, func(c *Config) { c.APIKeyHeader = "api-key" })
	s, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	h := fs.requests()[0].header
	if h.Get("api-key") != testKey || h.Get("Authorization") != "" {
		t.Fatalf("headers = %v", h)
	}

	p.lookup = func(string) (string, bool) { return "", false }
	_, err = p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	checkErr(t, err, []string{"environment variable RX_TEST_LLM_CRED (api_key_env) is not set"}, extproto.ReasonProviderFailed)

	noKey, _ := newTestProvider(t, fs, func(c *Config) { c.APIKeyEnv = "" })
	s, err = noKey.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if h := fs.requests()[1].header.Get("Authorization"); h != "" {
		t.Fatalf("a provider without api_key_env sent Authorization %q", h)
	}
}

// TestAPIKeyFile: the key comes from the file, read on every request (a
// key written later is picked up), is masked in errors whatever its shape
// and becomes a secret to the default redactor; a missing or empty file
// fails the request naming the file, never showing a key.
func TestAPIKeyFile(t *testing.T) {
	t.Parallel()
	const fileKey = "fk-Qm7Zt2Lw9Xc4Vb8Nn1Rp"
	keyFile := filepath.Join(t.TempDir(), "local.key")
	fs := newFakeServer(t,
		reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true},
		reply{status: 401, body: `{"error":{"message":"Incorrect API key provided: ` + fileKey + `"}}`})
	p, _ := newTestProvider(t, fs, func(c *Config) { c.APIKeyEnv = ""; c.APIKeyFile = keyFile })

	_, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	checkErr(t, err, []string{"key file " + keyFile + " (api_key_file) cannot be read"}, extproto.ReasonProviderFailed)
	if err := os.WriteFile(keyFile, []byte("  \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	checkErr(t, err, []string{"key file " + keyFile + " (api_key_file) is empty"}, extproto.ReasonProviderFailed)

	if err := os.WriteFile(keyFile, []byte(fileKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if h := fs.requests()[0].header.Get("Authorization"); h != "Bearer "+fileKey {
		t.Fatalf("Authorization = %q", h)
	}
	_, err = p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err == nil || strings.Contains(err.Error(), fileKey) || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("401 error = %v", err)
	}
	if got := redact.String("the server said " + fileKey); strings.Contains(got, fileKey) {
		t.Fatalf("the default redactor does not know the file's key: %q", got)
	}
}

// TestAPIKeyFromProcessEnvironment is the one test on the real
// environment; t.Setenv forbids t.Parallel.
func TestAPIKeyFromProcessEnvironment(t *testing.T) {
	t.Setenv("RX_TEST_PROCESS_CRED", "proc-key-Zx81Lm")
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`}, done: true})
	p, err := New(Config{Name: "env", BaseURL: fs.URL + "/v1", APIKeyEnv: "RX_TEST_PROCESS_CRED", Models: []ModelConfig{{ID: "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.Stream(context.Background(), userRequest("env/m", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	drain(t, s)
	if h := fs.requests()[0].header.Get("Authorization"); h != "Bearer proc-key-Zx81Lm" {
		t.Fatalf("Authorization = %q", h)
	}
}

// TestCancelStopsReading: cancelling the caller's context mid-stream
// fails Next as interrupted with the context error and drops the
// connection, which the server observes.
func TestCancelStopsReading(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{"content":"first"}}]}`}, hang: true})
	p, _ := newTestProvider(t, fs, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := p.Stream(ctx, userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ch, err := s.Next()
	if err != nil || ch.Text != "first" {
		t.Fatalf("first chunk = %+v, %v", ch, err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err = s.Next()
	checkErr(t, err, []string{"stream stopped after 1 chunks"}, extproto.ReasonProviderInterrupted)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error does not wrap context.Canceled: %v", err)
	}
	select {
	case <-fs.gone:
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
	if _, err2 := s.Next(); !errors.Is(err2, context.Canceled) {
		t.Fatalf("Next after cancel = %v, want the same error again", err2)
	}
}

// TestCancelBeforeHeaders: a server slow to answer does not hold Stream
// past the caller's cancellation, and nothing is retried.
func TestCancelBeforeHeaders(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	fs := newFakeServer(t, reply{})
	fs.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	p, slept := newTestProvider(t, fs, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := p.Stream(ctx, userRequest("local/qwen2.5-coder", "hi"))
	checkErr(t, err, []string{"POST"}, extproto.ReasonProviderInterrupted)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error does not wrap the context error: %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Stream took %v after the deadline", d)
	}
	if len(*slept) != 0 {
		t.Fatalf("retried after cancellation: %v", *slept)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`}, hang: true})
	p, _ := newTestProvider(t, fs, func(c *Config) { c.IdleTimeout = 150 * time.Millisecond })
	s, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	// A slow consumer is not an idle server: the timer runs only while
	// Next waits on the network.
	time.Sleep(300 * time.Millisecond)
	chunks, err := drain(t, s)
	if len(chunks) != 1 || chunks[0].Text != "a" {
		t.Fatalf("chunks = %+v", chunks)
	}
	checkErr(t, err, []string{"the server sent nothing for 150ms"}, extproto.ReasonProviderInterrupted)
}

func TestModelsDescriptors(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{})
	p, _ := newTestProvider(t, fs, func(c *Config) { c.Models[0].DisplayName = "Qwen Coder"; c.Models[0].InputPerMillion = 0.2 })
	got := p.Models()
	want := []extproto.ProviderDescriptor{
		{Ref: "local/qwen2.5-coder", DisplayName: "Qwen Coder", Model: "qwen2.5-coder", ContextWindow: 32768, Tools: true, Vision: true, InputPerMillion: 0.2},
		{Ref: "local/r1", DisplayName: "Deep/R1", Model: "Deep/R1", Reasoning: true, Efforts: []string{"low", "high"}, DefaultEffort: "low", ReasoningRoundTrip: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("descriptors\n got %+v\nwant %+v", got, want)
	}
	if p.Origin() != providers.Builtin("local") {
		t.Fatalf("origin = %v", p.Origin())
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), fs.URL) || strings.Contains(string(b), "RX_TEST_LLM_CRED") || strings.Contains(string(b), "X-Title") {
		t.Fatalf("descriptors leak configuration: %s", b)
	}
}

// TestCloseAbortsNext: Close from another goroutine unblocks a Next that
// waits on a silent server.
func TestCloseAbortsNext(t *testing.T) {
	t.Parallel()
	fs := newFakeServer(t, reply{events: []string{`{"choices":[{"index":0,"delta":{"content":"a"}}]}`}, hang: true})
	p, _ := newTestProvider(t, fs, nil)
	s, err := p.Stream(context.Background(), userRequest("local/qwen2.5-coder", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Next(); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, func() { s.Close() })
	_, err = s.Next()
	checkErr(t, err, []string{"the stream was closed after 1 chunks"}, extproto.ReasonProviderInterrupted)
	<-fs.gone
}
