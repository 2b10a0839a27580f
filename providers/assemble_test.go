package providers

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

func TestCollect(t *testing.T) {
	t.Parallel()
	call := func(id, args string) *protocol.ProviderToolCall {
		return &protocol.ProviderToolCall{ID: id, Name: "lookup", Arguments: args}
	}
	usage := &protocol.ProviderUsage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12, CacheHitTokens: 2, CacheMissTokens: 3, ReasoningTokens: 4, FinishReason: "tool_calls"}
	tests := []struct {
		name      string
		chunks    []protocol.ProviderChunk
		fail      error
		want      Response
		wantErr   string
		wantCause protocol.Reason
	}{
		{
			name: "text reasoning tools usage",
			chunks: []protocol.ProviderChunk{
				{Type: protocol.ChunkReasoning, Text: "think "},
				{Type: protocol.ChunkReasoning, Text: "more", Signature: "sig-1"},
				{Type: protocol.ChunkText, Text: "hello "},
				{Type: protocol.ChunkText, Text: "world"},
				{Type: protocol.ChunkToolCallStart, ToolCall: call("c1", "")},
				{Type: protocol.ChunkToolCallArgsDelta, ArgChars: 3, Text: `{"q`},
				{Type: protocol.ChunkToolCall, ToolCall: call("c1", `{"q":1}`)},
				{Type: protocol.ChunkToolCall, ToolCall: call("c2", `{}`)},
				{Type: protocol.ChunkUsage, Usage: usage},
				{Type: protocol.ChunkDone},
			},
			want: Response{
				Text: "hello world", Reasoning: "think more", ReasoningSignature: "sig-1",
				ToolCalls: []protocol.ProviderToolCall{*call("c1", `{"q":1}`), *call("c2", `{}`)},
				Usage:     usage, Done: true,
			},
		},
		{
			name:      "no done is interrupted",
			chunks:    []protocol.ProviderChunk{{Type: protocol.ChunkText, Text: "partial"}},
			want:      Response{Text: "partial"},
			wantErr:   "ended without done",
			wantCause: protocol.ReasonProviderInterrupted,
		},
		{
			name:      "error chunk becomes its reason",
			chunks:    []protocol.ProviderChunk{{Type: protocol.ChunkText, Text: "a"}, {Type: protocol.ChunkError, Error: &protocol.ProviderError{Code: protocol.ProviderCodeInterrupted, Message: "upstream cut"}}},
			want:      Response{Text: "a"},
			wantErr:   "upstream cut",
			wantCause: protocol.ReasonProviderInterrupted,
		},
		{
			name:      "stream error passes through with the partial response",
			chunks:    []protocol.ProviderChunk{{Type: protocol.ChunkText, Text: "a"}},
			fail:      protocol.NewError(protocol.ReasonProviderFailed, "boom"),
			want:      Response{Text: "a"},
			wantErr:   "boom",
			wantCause: protocol.ReasonProviderFailed,
		},
		{
			name:    "chunk after done",
			chunks:  []protocol.ProviderChunk{{Type: protocol.ChunkDone}, {Type: protocol.ChunkText, Text: "late"}},
			want:    Response{Done: true},
			wantErr: `"text" chunk after done`,
		},
		{
			name:    "duplicate tool call",
			chunks:  []protocol.ProviderChunk{{Type: protocol.ChunkToolCall, ToolCall: call("c1", "{}")}, {Type: protocol.ChunkToolCall, ToolCall: call("c1", "{}")}},
			want:    Response{ToolCalls: []protocol.ProviderToolCall{*call("c1", "{}")}},
			wantErr: `tool call "c1" twice`,
		},
		{
			name:    "tool call without id",
			chunks:  []protocol.ProviderChunk{{Type: protocol.ChunkToolCall, ToolCall: &protocol.ProviderToolCall{Name: "x"}}},
			wantErr: "without a call id and name",
		},
		{
			name:    "usage chunk without usage",
			chunks:  []protocol.ProviderChunk{{Type: protocol.ChunkUsage}},
			wantErr: "usage chunk without usage",
		},
		{
			name:    "unknown type",
			chunks:  []protocol.ProviderChunk{{Type: "bogus"}},
			wantErr: `unknown type "bogus"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &sliceStream{ctx: context.Background(), chunks: tt.chunks, fail: tt.fail}
			got, err := Collect(s)
			if !s.closed {
				t.Error("Collect did not close the stream")
			}
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if tt.wantCause != "" && protocol.ReasonOf(err) != tt.wantCause {
				t.Fatalf("reason = %q, want %q", protocol.ReasonOf(err), tt.wantCause)
			}
			if tt.want.ToolCalls == nil {
				tt.want.ToolCalls = []protocol.ProviderToolCall{}
			}
			if got.ToolCalls == nil {
				got.ToolCalls = []protocol.ProviderToolCall{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("response = %+v\nwant       %+v", got, tt.want)
			}
		})
	}
}

func TestCollectCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Collect(&sliceStream{ctx: ctx, chunks: []protocol.ProviderChunk{{Type: protocol.ChunkText}}})
	if !errors.Is(err, context.Canceled) || protocol.ReasonOf(err) != protocol.ReasonProviderInterrupted {
		t.Fatalf("err = %v, want interrupted wrapping context.Canceled", err)
	}
}
