package openai

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// FuzzSSE feeds arbitrary bytes through the SSE reader and the chunk
// decoder, as a hostile or broken server would send them. Whatever the
// input, decoding must terminate without panicking, every chunk it yields
// must be valid on the protocol wire, nothing may follow done, and a fault
// must carry one of the two provider reasons.
func FuzzSSE(f *testing.F) {
	for _, seed := range []string{
		sse(`{"choices":[{"index":0,"delta":{"content":"Hello"}}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`),
		sse(toolCallEvents()...),
		sse(`{"choices":[{"index":0,"delta":{"reasoning_content":"r"}}]}`, `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":1}}}`),
		"event: error\ndata: {\"error\":{\"message\":\"x\"}}\n\n",
		": ping\r\n\r\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"f\"}}]},\"finish_reason\":\"tool_calls\"}]}\r\r",
		"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":3,\"id\":\"x\",\"function\":{\"arguments\":\"{\"}}]}}]}\n\ndata: [DONE]\n",
		"data: {\"choices\":[{\"ind",
		"data: [DONE]\n\ndata: {}\n\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := newSSEReader(bytes.NewReader(body))
		var d decoder
		args := map[string]int{}
		callIDs := map[string]bool{}
		for events := 0; ; events++ {
			if events > len(body)+1 {
				t.Fatalf("more events (%d) than input bytes (%d)", events, len(body))
			}
			ev, err := r.next()
			var chunks []chunkOrFault
			if err != nil {
				if !errors.Is(err, io.EOF) {
					return
				}
				cs, f := d.eof()
				chunks = wrap(cs, f)
			} else {
				cs, f := d.event(ev)
				chunks = wrap(cs, f)
			}
			for _, c := range chunks {
				if c.fault != nil {
					if r := c.fault.reason; r != extproto.ReasonProviderFailed && r != extproto.ReasonProviderInterrupted {
						t.Fatalf("fault with reason %q", r)
					}
					return
				}
				ch := c.chunk
				if err := ch.Validate(); err != nil {
					t.Fatalf("invalid chunk %+v: %v", ch, err)
				}
				if ch.Type == extproto.ChunkToolCall {
					if callIDs[ch.ToolCall.ID] {
						t.Fatalf("tool call id %q delivered twice", ch.ToolCall.ID)
					}
					callIDs[ch.ToolCall.ID] = true
				}
				if ch.Type == extproto.ChunkToolCallArgsDelta {
					if ch.ArgChars < args[ch.ToolCall.ID] {
						t.Fatalf("argChars went back from %d to %d", args[ch.ToolCall.ID], ch.ArgChars)
					}
					args[ch.ToolCall.ID] = ch.ArgChars
				}
			}
			if d.done || err != nil {
				if _, f := d.event(sseEvent{Data: "{}"}); f == nil {
					t.Fatal("an event after the end was accepted")
				}
				return
			}
		}
	})
}

type chunkOrFault struct {
	chunk extproto.ProviderChunk
	fault *fault
}

func wrap(cs []extproto.ProviderChunk, f *fault) []chunkOrFault {
	out := make([]chunkOrFault, 0, len(cs)+1)
	for _, c := range cs {
		out = append(out, chunkOrFault{chunk: c})
	}
	if f != nil {
		out = append(out, chunkOrFault{fault: f})
	}
	return out
}
