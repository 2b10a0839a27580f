package providers

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

func TestCollect(t *testing.T) {
	t.Parallel()
	call := func(id, args string) *extproto.ProviderToolCall {
		return &extproto.ProviderToolCall{ID: id, Name: "lookup", Arguments: args}
	}
	usage := &extproto.ProviderUsage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12, CacheHitTokens: 2, CacheMissTokens: 3, ReasoningTokens: 4, FinishReason: "tool_calls"}
	tests := []struct {
		name      string
		chunks    []extproto.ProviderChunk
		fail      error
		want      Response
		wantErr   string
		wantCause extproto.Reason
	}{
		{
			name: "text reasoning tools usage",
			chunks: []extproto.ProviderChunk{
				{Type: extproto.ChunkReasoning, Text: "think "},
				{Type: extproto.ChunkReasoning, Text: "more", Signature: "sig-1"},
				{Type: extproto.ChunkText, Text: "hello "},
				{Type: extproto.ChunkText, Text: "world"},
				{Type: extproto.ChunkToolCallStart, ToolCall: call("c1", "")},
				{Type: extproto.ChunkToolCallArgsDelta, ArgChars: 3, Text: `{"q`},
				{Type: extproto.ChunkToolCall, ToolCall: call("c1", `{"q":1}`)},
				{Type: extproto.ChunkToolCall, ToolCall: call("c2", `{}`)},
				{Type: extproto.ChunkUsage, Usage: usage},
				{Type: extproto.ChunkDone},
			},
			want: Response{
				Text: "hello world", Reasoning: "think more", ReasoningSignature: "sig-1",
				ToolCalls: []extproto.ProviderToolCall{*call("c1", `{"q":1}`), *call("c2", `{}`)},
				Usage:     usage, Done: true,
			},
		},
		{
			name:      "no done is interrupted",
			chunks:    []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "partial"}},
			want:      Response{Text: "partial"},
			wantErr:   "ended without done",
			wantCause: extproto.ReasonProviderInterrupted,
		},
		{
			name:      "error chunk becomes its reason",
			chunks:    []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}, {Type: extproto.ChunkError, Error: &extproto.ProviderError{Code: extproto.ProviderCodeInterrupted, Message: "upstream cut"}}},
			want:      Response{Text: "a"},
			wantErr:   "upstream cut",
			wantCause: extproto.ReasonProviderInterrupted,
		},
		{
			name:      "stream error passes through with the partial response",
			chunks:    []extproto.ProviderChunk{{Type: extproto.ChunkText, Text: "a"}},
			fail:      extproto.NewError(extproto.ReasonProviderFailed, "boom"),
			want:      Response{Text: "a"},
			wantErr:   "boom",
			wantCause: extproto.ReasonProviderFailed,
		},
		{
			name:    "chunk after done",
			chunks:  []extproto.ProviderChunk{{Type: extproto.ChunkDone}, {Type: extproto.ChunkText, Text: "late"}},
			want:    Response{Done: true},
			wantErr: `"text" chunk after done`,
		},
		{
			name:    "duplicate tool call",
			chunks:  []extproto.ProviderChunk{{Type: extproto.ChunkToolCall, ToolCall: call("c1", "{}")}, {Type: extproto.ChunkToolCall, ToolCall: call("c1", "{}")}},
			want:    Response{ToolCalls: []extproto.ProviderToolCall{*call("c1", "{}")}},
			wantErr: `tool call "c1" twice`,
		},
		{
			name:    "tool call without id",
			chunks:  []extproto.ProviderChunk{{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{Name: "x"}}},
			wantErr: "without a call id and name",
		},
		{
			name:    "usage chunk without usage",
			chunks:  []extproto.ProviderChunk{{Type: extproto.ChunkUsage}},
			wantErr: "usage chunk without usage",
		},
		{
			name:    "unknown type",
			chunks:  []extproto.ProviderChunk{{Type: "bogus"}},
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
			if tt.wantCause != "" && extproto.ReasonOf(err) != tt.wantCause {
				t.Fatalf("reason = %q, want %q", extproto.ReasonOf(err), tt.wantCause)
			}
			if tt.want.ToolCalls == nil {
				tt.want.ToolCalls = []extproto.ProviderToolCall{}
			}
			if got.ToolCalls == nil {
				got.ToolCalls = []extproto.ProviderToolCall{}
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
	_, err := Collect(&sliceStream{ctx: ctx, chunks: []extproto.ProviderChunk{{Type: extproto.ChunkText}}})
	if !errors.Is(err, context.Canceled) || extproto.ReasonOf(err) != extproto.ReasonProviderInterrupted {
		t.Fatalf("err = %v, want interrupted wrapping context.Canceled", err)
	}
}
