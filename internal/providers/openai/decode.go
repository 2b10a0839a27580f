package openai

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The wire shape of one `chat.completion.chunk`, reduced to what the
// translation reads. Pointers tell "absent" from "empty".
type wireChunk struct {
	Choices []wireChoice    `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Content *string `json:"content"`
	// ReasoningContent is DeepSeek's, vLLM's and llama.cpp's name for the
	// reasoning delta; Reasoning is OpenRouter's and Ollama's.
	ReasoningContent *string             `json:"reasoning_content"`
	Reasoning        *string             `json:"reasoning"`
	ToolCalls        []wireToolCallDelta `json:"tool_calls"`
}

type wireToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails *struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
	// DeepSeek reports the cache split directly.
	PromptCacheHitTokens  *int `json:"prompt_cache_hit_tokens"`
	PromptCacheMissTokens *int `json:"prompt_cache_miss_tokens"`
}

// fault is a stream failure before it is worded for the user: our own
// description, and the server's text (which gets redacted) if any.
type fault struct {
	reason extproto.Reason
	what   string
	server string
}

func (f *fault) Error() string {
	if f.server == "" {
		return f.what
	}
	return f.what + ": " + f.server
}

func failed(what, server string) *fault {
	return &fault{reason: extproto.ReasonProviderFailed, what: what, server: server}
}

// toolCallState accumulates one streamed tool call, keyed by the call
// index the server assigns.
type toolCallState struct {
	index   int
	id      string
	name    string
	args    strings.Builder
	started bool
	// reported is how many argument bytes tool_call_args_delta chunks
	// already covered, so a late start reports the buffered prefix once.
	reported int
	chars    int
}

// decoder translates the chat-completions event stream into protocol
// chunks. It is a pure state machine over events so it can be fuzzed
// without a network.
type decoder struct {
	calls map[int]*toolCallState
	// ids are the call ids used so far in this stream, flushed calls
	// included: an id pairs a tool result with its call, so it must be
	// unique.
	ids          map[string]bool
	finishReason string
	finished     bool
	usage        *extproto.ProviderUsage
	done         bool
}

// event translates one server-sent event.
func (d *decoder) event(ev sseEvent) ([]extproto.ProviderChunk, *fault) {
	if d.done {
		return nil, failed("event after [DONE]", collapse(ev.Data))
	}
	data := strings.TrimSpace(ev.Data)
	if ev.Event == "error" {
		return nil, failed("server reported an error mid-stream", serverMessage([]byte(data)))
	}
	if data == "[DONE]" {
		return d.finish()
	}
	if data == "" {
		return nil, nil
	}
	var wc wireChunk
	if err := json.Unmarshal([]byte(data), &wc); err != nil {
		return nil, failed("malformed stream event ("+jsonProblem(err)+")", collapse(data))
	}
	if len(wc.Error) > 0 && !bytes.Equal(wc.Error, []byte("null")) {
		return nil, failed("server reported an error mid-stream", serverMessage([]byte(data)))
	}
	var out []extproto.ProviderChunk
	for _, c := range wc.Choices {
		// We never ask for n > 1, so other choices cannot carry our answer.
		if c.Index != 0 {
			continue
		}
		chunks, f := d.choice(c)
		if f != nil {
			return nil, f
		}
		out = append(out, chunks...)
	}
	if wc.Usage != nil {
		u, f := convertUsage(*wc.Usage)
		if f != nil {
			return nil, f
		}
		// Kept until the end: some servers repeat usage on every chunk, and
		// the finish reason it is reported with may come later.
		d.usage = &u
	}
	return out, nil
}

func (d *decoder) choice(c wireChoice) ([]extproto.ProviderChunk, *fault) {
	var out []extproto.ProviderChunk
	for _, r := range []*string{c.Delta.ReasoningContent, c.Delta.Reasoning} {
		if r != nil && *r != "" {
			out = append(out, extproto.ProviderChunk{Type: extproto.ChunkReasoning, Text: *r})
			// A server sending both names sends the same text twice.
			break
		}
	}
	if c.Delta.Content != nil && *c.Delta.Content != "" {
		out = append(out, extproto.ProviderChunk{Type: extproto.ChunkText, Text: *c.Delta.Content})
	}
	for _, tc := range c.Delta.ToolCalls {
		chunks, f := d.toolCallDelta(tc)
		if f != nil {
			return nil, f
		}
		out = append(out, chunks...)
	}
	if c.FinishReason != nil && *c.FinishReason != "" {
		d.finishReason = *c.FinishReason
		d.finished = true
		calls, f := d.flushCalls()
		if f != nil {
			return nil, f
		}
		out = append(out, calls...)
	}
	return out, nil
}

func (d *decoder) toolCallDelta(tc wireToolCallDelta) ([]extproto.ProviderChunk, *fault) {
	if d.calls == nil {
		d.calls = map[int]*toolCallState{}
	}
	idx := 0
	switch {
	case tc.Index != nil:
		idx = *tc.Index
	case len(d.calls) > 0 && tc.ID == "":
		// Servers that omit the index continue the latest call until a
		// delta with a new id starts the next one.
		idx = slices.Max(keys(d.calls))
	case len(d.calls) > 0:
		idx = slices.Max(keys(d.calls)) + 1
	}
	if idx < 0 {
		return nil, failed("malformed stream event", "negative tool call index "+strconv.Itoa(idx))
	}
	st, ok := d.calls[idx]
	if !ok {
		st = &toolCallState{index: idx}
		d.calls[idx] = st
	}
	if st.id == "" && tc.ID != "" {
		st.id = tc.ID
	}
	if tc.Function.Name != "" {
		if st.started && st.name != tc.Function.Name {
			return nil, failed("malformed stream event", fmt.Sprintf("tool call %d renamed from %q to %q", idx, st.name, tc.Function.Name))
		}
		st.name = tc.Function.Name
	}
	st.args.WriteString(tc.Function.Arguments)

	var out []extproto.ProviderChunk
	if !st.started && st.name != "" {
		if st.id == "" {
			// The protocol needs an id to pair the result with the call;
			// servers that send none (older Ollama) get a positional one
			// that no other call of the stream uses.
			st.id = "call_" + strconv.Itoa(idx)
			for n := 2; d.ids[st.id]; n++ {
				st.id = "call_" + strconv.Itoa(idx) + "_" + strconv.Itoa(n)
			}
		} else if d.ids[st.id] {
			return nil, failed("malformed stream event", fmt.Sprintf("tool call id %q is used by two calls", st.id))
		}
		if d.ids == nil {
			d.ids = map[string]bool{}
		}
		d.ids[st.id] = true
		st.started = true
		out = append(out, extproto.ProviderChunk{Type: extproto.ChunkToolCallStart, ToolCall: st.header()})
	}
	if st.started && st.args.Len() > st.reported {
		delta := st.args.String()[st.reported:]
		st.reported = st.args.Len()
		st.chars += utf8.RuneCountInString(delta)
		out = append(out, extproto.ProviderChunk{Type: extproto.ChunkToolCallArgsDelta, Text: delta, ArgChars: st.chars, ToolCall: st.header()})
	}
	return out, nil
}

// header identifies a call in start and delta chunks; its arguments come
// whole in the final tool_call chunk.
func (st *toolCallState) header() *extproto.ProviderToolCall {
	return &extproto.ProviderToolCall{ID: st.id, Name: st.name, Arguments: ""}
}

// flushCalls emits the final tool_call chunk of every pending call, in
// index order, and forgets them.
func (d *decoder) flushCalls() ([]extproto.ProviderChunk, *fault) {
	var out []extproto.ProviderChunk
	idxs := keys(d.calls)
	slices.Sort(idxs)
	for _, i := range idxs {
		st := d.calls[i]
		if !st.started {
			return nil, failed("malformed stream event", fmt.Sprintf("tool call %d never got a function name", i))
		}
		args := st.args.String()
		if strings.TrimSpace(args) == "" {
			// A call of a tool without parameters; "{}" is what the tool
			// side can parse.
			args = "{}"
		}
		out = append(out, extproto.ProviderChunk{Type: extproto.ChunkToolCall, ToolCall: &extproto.ProviderToolCall{ID: st.id, Name: st.name, Arguments: args}})
	}
	d.calls = nil
	return out, nil
}

// finish ends the stream at [DONE]: pending calls, the usage with the
// finish reason, then done.
func (d *decoder) finish() ([]extproto.ProviderChunk, *fault) {
	out, f := d.flushCalls()
	if f != nil {
		return nil, f
	}
	if d.usage != nil {
		u := *d.usage
		u.FinishReason = d.finishReason
		out = append(out, extproto.ProviderChunk{Type: extproto.ChunkUsage, Usage: &u})
	}
	d.done = true
	return append(out, extproto.ProviderChunk{Type: extproto.ChunkDone}), nil
}

// eof handles the body ending without [DONE]. A server that already
// finished its choice has said everything but the terminator (some close
// the connection instead); otherwise the answer was cut off.
func (d *decoder) eof() ([]extproto.ProviderChunk, *fault) {
	if d.done {
		return nil, nil
	}
	if !d.finished {
		return nil, &fault{reason: extproto.ReasonProviderInterrupted, what: "the server closed the stream before the response was finished"}
	}
	return d.finish()
}

func convertUsage(w wireUsage) (extproto.ProviderUsage, *fault) {
	u := extproto.ProviderUsage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
	if w.CompletionTokensDetails != nil {
		u.ReasoningTokens = w.CompletionTokensDetails.ReasoningTokens
	}
	switch {
	case w.PromptCacheHitTokens != nil || w.PromptCacheMissTokens != nil:
		u.CacheHitTokens = deref(w.PromptCacheHitTokens)
		u.CacheMissTokens = deref(w.PromptCacheMissTokens)
	case w.PromptTokensDetails != nil:
		u.CacheHitTokens = w.PromptTokensDetails.CachedTokens
		u.CacheMissTokens = max(u.PromptTokens-u.CacheHitTokens, 0)
	default:
		// No cache report: every prompt token was processed afresh.
		u.CacheMissTokens = u.PromptTokens
	}
	if err := u.Validate(); err != nil {
		return u, failed("malformed usage", err.Error())
	}
	return u, nil
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func keys(m map[int]*toolCallState) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// jsonProblem describes a JSON error without echoing the input.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("invalid JSON at byte %d", syn.Offset)
	case errors.As(err, &typ):
		return fmt.Sprintf("%s is %s, want %s", typ.Field, typ.Value, typ.Type)
	}
	return "invalid JSON"
}
