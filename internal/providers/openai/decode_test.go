package openai

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// decodeAll runs the SSE reader and the decoder over a whole body, as the
// stream does, and returns the chunks and the first fault.
func decodeAll(body string) ([]extproto.ProviderChunk, *fault) {
	r := newSSEReader(strings.NewReader(body))
	var d decoder
	var out []extproto.ProviderChunk
	for !d.done {
		ev, err := r.next()
		if err != nil {
			if err.Error() == "EOF" {
				chunks, f := d.eof()
				return append(out, chunks...), f
			}
			return out, &fault{reason: extproto.ReasonProviderInterrupted, what: err.Error()}
		}
		chunks, f := d.event(ev)
		out = append(out, chunks...)
		if f != nil {
			return out, f
		}
	}
	return out, nil
}

// sse renders JSON events as a server would send them, then [DONE].
func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString("data: " + e + "\n\n")
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func header(id, name string) *extproto.ProviderToolCall {
	return &extproto.ProviderToolCall{ID: id, Name: name}
}

func TestDecoder(t *testing.T) {
	t.Parallel()
	done := extproto.ProviderChunk{Type: extproto.ChunkDone}
	tests := []struct {
		name     string
		body     string
		want     []extproto.ProviderChunk
		wantWhat string
		reason   extproto.Reason
	}{
		{
			name: "text",
			body: sse(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "Hel"}, {Type: extproto.ChunkText, Text: "lo"}, done},
		},
		{
			name: "reasoning under both names",
			body: sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"think"}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning":"more"}}]}`,
				`{"choices":[{"index":0,"delta":{"reasoning":"x","reasoning_content":"x"}}]}`,
				`{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkReasoning, Text: "think"}, {Type: extproto.ChunkReasoning, Text: "more"}, {Type: extproto.ChunkReasoning, Text: "x"}, {Type: extproto.ChunkText, Text: "ok"}, done},
		},
		{
			name: "usage after finish, openai cache details",
			body: sse(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`,
				`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":4,"total_tokens":14,"prompt_tokens_details":{"cached_tokens":6},"completion_tokens_details":{"reasoning_tokens":3}}}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"},
				{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 10, CompletionTokens: 4, TotalTokens: 14, CacheHitTokens: 6, CacheMissTokens: 4, ReasoningTokens: 3, FinishReason: "stop"}}, done},
		},
		{
			name: "deepseek cache split, usage in the finish chunk",
			body: sse(`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12,"prompt_cache_hit_tokens":8,"prompt_cache_miss_tokens":2}}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12, CacheHitTokens: 8, CacheMissTokens: 2, FinishReason: "length"}}, done},
		},
		{
			name: "no cache report counts every prompt token as a miss",
			body: sse(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 3, CompletionTokens: 1, TotalTokens: 4, CacheMissTokens: 3, FinishReason: "stop"}}, done},
		},
		{
			name: "repeated usage keeps the last",
			body: sse(`{"choices":[{"index":0,"delta":{"content":"a"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}, {Type: extproto.ChunkUsage, Usage: &extproto.ProviderUsage{PromptTokens: 3, CompletionTokens: 2, TotalTokens: 5, CacheMissTokens: 3, FinishReason: "stop"}}, done},
		},
		{
			name: "two tool calls split across deltas",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"é\"}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"ls","arguments":"{}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			want: []extproto.ProviderChunk{
				{Type: extproto.ChunkToolCallStart, ToolCall: header("call_a", "read")},
				{Type: extproto.ChunkToolCallArgsDelta, Text: `{"pa`, ArgChars: 4, ToolCall: header("call_a", "read")},
				{Type: extproto.ChunkToolCallArgsDelta, Text: `th":"é"}`, ArgChars: 12, ToolCall: header("call_a", "read")},
				{Type: extproto.ChunkToolCallStart, ToolCall: header("call_b", "ls")},
				{Type: extproto.ChunkToolCallArgsDelta, Text: `{}`, ArgChars: 2, ToolCall: header("call_b", "ls")},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "call_a", Name: "read", Arguments: `{"path":"é"}`}},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "call_b", Name: "ls", Arguments: `{}`}},
				done,
			},
		},
		{
			name: "no index, no id, no arguments",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"function":{"name":"now"}}]},"finish_reason":"tool_calls"}]}`),
			want: []extproto.ProviderChunk{
				{Type: extproto.ChunkToolCallStart, ToolCall: header("call_0", "now")},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "call_0", Name: "now", Arguments: "{}"}},
				done,
			},
		},
		{
			name: "a synthesized id never collides with a server id",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","function":{"name":"a"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"b"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			want: []extproto.ProviderChunk{
				{Type: extproto.ChunkToolCallStart, ToolCall: header("call_1", "a")},
				{Type: extproto.ChunkToolCallStart, ToolCall: header("call_1_2", "b")},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "call_1", Name: "a", Arguments: "{}"}},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "call_1_2", Name: "b", Arguments: "{}"}},
				done,
			},
		},
		{
			name:     "two calls with one server id",
			body:     sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"a"}},{"index":1,"id":"c","function":{"name":"b"}}]}}]}`),
			want:     nil,
			wantWhat: `tool call id "c" is used by two calls`,
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name: "arguments before the name are reported at start",
			body: sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{\"a\""}}]}}]}`,
				`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":":1}"}}]}}]}`,
				`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`),
			want: []extproto.ProviderChunk{
				{Type: extproto.ChunkToolCallStart, ToolCall: header("c", "f")},
				{Type: extproto.ChunkToolCallArgsDelta, Text: `{"a":1}`, ArgChars: 7, ToolCall: header("c", "f")},
				{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: "c", Name: "f", Arguments: `{"a":1}`}},
				done,
			},
		},
		{
			name: "closed after finish without [DONE] is complete",
			body: "data: " + `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}` + "\n\n",
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}, done},
		},
		{
			name:     "closed before finish is interrupted",
			body:     "data: " + `{"choices":[{"index":0,"delta":{"content":"a"}}]}` + "\n\n",
			want:     []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}},
			wantWhat: "closed the stream before the response was finished",
			reason:   extproto.ReasonProviderInterrupted,
		},
		{
			name:     "malformed json",
			body:     sse(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"choices":[{"ind`),
			want:     []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}},
			wantWhat: "malformed stream event (invalid JSON",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name:     "wrong type",
			body:     sse(`{"choices":[{"index":0,"delta":{"content":5}}]}`),
			wantWhat: "malformed stream event (choices.delta.content is number, want string)",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name:     "error object mid-stream",
			body:     sse(`{"choices":[{"index":0,"delta":{"content":"a"}}]}`, `{"error":{"message":"context length exceeded"}}`),
			want:     []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}},
			wantWhat: "server reported an error mid-stream: context length exceeded",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name:     "error event",
			body:     "event: error\ndata: {\"message\":\"overloaded\"}\n\n",
			wantWhat: "server reported an error mid-stream: overloaded",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name:     "tool call without a name",
			body:     sse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`),
			wantWhat: "tool call 0 never got a function name",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name:     "negative usage",
			body:     sse(`{"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":1,"total_tokens":0}}`),
			wantWhat: "malformed usage",
			reason:   extproto.ReasonProviderFailed,
		},
		{
			name: "keep-alive comments and empty data are skipped",
			body: ": ping\n\ndata:\n\n" + sse(`{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}, done},
		},
		{
			name: "other choices ignored",
			body: sse(`{"choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"},"finish_reason":"stop"}]}`),
			want: []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}, done},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, f := decodeAll(tt.body)
			if tt.wantWhat == "" && f != nil {
				t.Fatalf("fault: %v", f)
			}
			if tt.wantWhat != "" {
				if f == nil || !strings.Contains(f.Error(), tt.wantWhat) || f.reason != tt.reason {
					t.Fatalf("fault = %v (%v), want %q (%s)", f, reasonOf(f), tt.wantWhat, tt.reason)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tt.want)
				t.Fatalf("chunks\n got %s\nwant %s", g, w)
			}
			for i, ch := range got {
				if err := ch.Validate(); err != nil {
					t.Fatalf("chunk %d is invalid on the wire: %v", i, err)
				}
			}
		})
	}
}

func reasonOf(f *fault) extproto.Reason {
	if f == nil {
		return ""
	}
	return f.reason
}
