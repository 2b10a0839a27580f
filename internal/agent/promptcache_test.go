package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/providers/openai"
)

// cachedPrompt is one chat completions request as a provider's prefix
// cache sees it: the leading system messages, the tool definitions, then
// the other messages, each in the bytes the client sent. Providers put
// the tools into the prompt ahead of the conversation, so a tool list
// that changes invalidates every message after it, as here. The model,
// max_tokens and other parameters are not part of the prompt.
type cachedPrompt struct {
	bytes []byte
	// head is the length of the system messages and tools, last that
	// of the last message; summary marks the compaction's request; tools
	// are the tool names in order.
	head, last int
	summary    bool
	tools      []string
}

type wireMessage struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ToolCalls []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// cacheServer is an OpenAI-compatible streaming chat completions server
// that records every request as a cachedPrompt and plays the model of
// a scripted session (answer).
type cacheServer struct {
	mu      sync.Mutex
	prompts []cachedPrompt
	answer  func(msgs []wireMessage) (summary bool, events []string)
}

func (c *cacheServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var p cachedPrompt
	msgs := make([]wireMessage, len(body.Messages))
	system := 0
	for i, m := range body.Messages {
		if err := json.Unmarshal(m, &msgs[i]); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if msgs[i].Role == "system" && system == i {
			p.bytes = append(append(p.bytes, m...), '\n')
			system++
		}
	}
	for _, tool := range body.Tools {
		var named struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		}
		_ = json.Unmarshal(tool, &named)
		p.tools = append(p.tools, named.Function.Name)
		p.bytes = append(append(p.bytes, tool...), '\n')
	}
	p.head = len(p.bytes)
	for _, m := range body.Messages[system:] {
		p.bytes = append(append(p.bytes, m...), '\n')
		p.last = len(m) + 1
	}
	summary, events := c.answer(msgs)
	p.summary = summary
	c.mu.Lock()
	c.prompts = append(c.prompts, p)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		_, _ = io.WriteString(w, "data: "+e+"\n\n")
	}
	usage, _ := json.Marshal(map[string]any{"choices": []any{}, "usage": map[string]int{
		"prompt_tokens": len(p.bytes) / 4, "completion_tokens": 50, "total_tokens": len(p.bytes)/4 + 50,
	}})
	_, _ = io.WriteString(w, "data: "+string(usage)+"\n\ndata: [DONE]\n\n")
}

func (c *cacheServer) recorded() []cachedPrompt {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.prompts)
}

// cacheable is, for each prompt, the longest common byte prefix with
// any earlier prompt of the session (what a provider's prefix cache can
// serve), and the prompts' total length.
func cacheable(ps []cachedPrompt) (hits []int, total int) {
	hits = make([]int, len(ps))
	for i, p := range ps {
		total += len(p.bytes)
		for _, q := range ps[:i] {
			n := min(len(p.bytes), len(q.bytes))
			k := 0
			for k < n && p.bytes[k] == q.bytes[k] {
				k++
			}
			hits[i] = max(hits[i], k)
		}
	}
	return hits, total
}

func sseText(s string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": s}, "finish_reason": "stop"}}})
	return string(b)
}

func sseCalls(calls ...[3]string) string {
	var tcs []any
	for i, c := range calls {
		tcs = append(tcs, map[string]any{"index": i, "id": c[0], "type": "function", "function": map[string]any{"name": c[1], "arguments": c[2]}})
	}
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"tool_calls": tcs}, "finish_reason": "tool_calls"}}})
	return string(b)
}

// Scripted session of TestPromptCacheShare.
const (
	cacheTurns   = 40
	cacheMCPTurn = 8 // the MCP server connects before this turn
	cacheWindow  = 16384
)

// cacheModel is the model of the scripted session: every turn reads a
// file, searches for a name, reads two lines of the next file, lists the
// workspace (or, once the MCP server is there, calls its echo tool) and
// answers: five requests, as an agent exploring code makes them; a
// request that asks for a summary gets one.
func cacheModel(msgs []wireMessage) (bool, []string) {
	for _, m := range msgs {
		if m.Content != nil && strings.HasPrefix(*m.Content, compactionGuidance[:40]) {
			return true, []string{sseText(strings.Repeat("The user asked for a tour of pkg; files were read and searched. ", 12))}
		}
	}
	u := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			u = i
			break
		}
	}
	var k int
	if u >= 0 && msgs[u].Content != nil {
		if i := strings.LastIndex(*msgs[u].Content, "turn "); i >= 0 {
			_, _ = fmt.Sscanf((*msgs[u].Content)[i:], "turn %d", &k)
		}
	}
	round := 0
	for _, m := range msgs[u+1:] {
		if m.Role == "assistant" {
			round++
		}
	}
	id := func(n int) string { return fmt.Sprintf("call_%d_%d_%d", k, round, n) }
	var call [3]string
	switch round {
	case 0:
		call = [3]string{id(0), "read_file", fmt.Sprintf(`{"path":"pkg/file%02d.go"}`, k)}
	case 1:
		call = [3]string{id(0), "search_text", fmt.Sprintf(`{"pattern":"Func%02d\\b","path":"pkg"}`, k)}
	case 2:
		call = [3]string{id(0), "read_file", fmt.Sprintf(`{"path":"pkg/file%02d.go","offset":3,"limit":2}`, k%cacheTurns+1)}
	case 3:
		call = [3]string{id(0), "list_files", `{}`}
		if k >= cacheMCPTurn {
			call = [3]string{id(0), "mcp__srv__echo", fmt.Sprintf(`{"message":"turn %d"}`, k)}
		}
	default:
		return false, []string{sseText(fmt.Sprintf("Turn %d: pkg/file%02d.go defines Func%02d, which adds its argument to a running total; it is called from one place. ", k, k, k) + strings.Repeat("Nothing else refers to it. ", 3))}
	}
	return false, []string{sseCalls(call)}
}

// TestPromptCacheShare replays a scripted 40-turn session with tool
// calls, one compaction (a 16k window) and one MCP server that connects
// late against a recording OpenAI-compatible server, and measures how
// much of each request a provider's prefix cache can serve (issue 32
// item 4): the compaction's request continues the session's own prefix
// and tools that arrive late are appended after those already sent, so
// at least 98% of the session's prompt bytes are cacheable.
func TestPromptCacheShare(t *testing.T) {
	t.Parallel()
	srv := &cacheServer{answer: cacheModel}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	prov, err := openai.New(openai.Config{Name: "test", BaseURL: hs.URL + "/v1", MaxAttempts: 1, Models: []openai.ModelConfig{{ID: "m1", ContextWindow: cacheWindow, Tools: true}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(prov.Close)
	cat, err := providers.NewCatalog(prov)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	host := mcphost.New([]mcphost.Server{{Name: "srv", Command: exe, Env: map[string]string{envChild: "mcp"}, Source: mcphost.SourceUser}}, mcphost.Options{})
	t.Cleanup(func() { _ = host.Close() })
	ws := t.TempDir()
	for _, name := range []string{"go.mod", "README.md"} {
		if err := os.WriteFile(ws+"/"+name, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k := 1; k <= cacheTurns; k++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg\n\n// Func%02d adds n to the running total of file %02d.\nfunc Func%02d(n int) int {\n", k, k, k)
		for i := range 6 + k%5 {
			fmt.Fprintf(&b, "\ttotal%02d += n * %d // step %d\n", k, i+1, i)
		}
		b.WriteString("\treturn n\n}\n")
		if err := os.MkdirAll(ws+"/pkg", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fmt.Sprintf("%s/pkg/file%02d.go", ws, k), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	updates := &collector{}
	a, err := NewAgent(Options{
		Home: t.TempDir(), Settings: Settings{Approval: ApproveYolo}, Editor: &fakeEditor{}, OnUpdate: updates.add,
		Runtime: contentRuntime{Runtime: Static(cat), mcp: host},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	s, err := a.New(ctx(t), ws, "test/m1")
	if err != nil {
		t.Fatal(err)
	}
	mcpAt := 0 // the first request after the server connected
	for k := 1; k <= cacheTurns; k++ {
		if k == cacheMCPTurn {
			if _, err := host.Connect(ctx(t), "srv"); err != nil {
				t.Fatal(err)
			}
			mcpAt = len(srv.recorded())
		}
		if res, err := s.Prompt(ctx(t), fmt.Sprintf("Look at turn %d of the tour: what does pkg/file%02d.go do?", k, k)); err != nil || res.Stop != StopEndTurn {
			t.Fatalf("turn %d: Prompt = %+v, %v", k, res, err)
		}
	}
	if n := len(notices(updates.of(s.ID()), NoticeCompaction)); n != 1 {
		t.Fatalf("%d compactions, want 1", n)
	}
	ps := srv.recorded()
	hits, total := cacheable(ps)
	hit := 0
	for _, h := range hits {
		hit += h
	}
	share := float64(hit) / float64(total)
	at := slices.IndexFunc(ps, func(p cachedPrompt) bool { return p.summary })
	if at < 1 {
		t.Fatal("no summary request")
	}
	pct := func(i int) float64 { return 100 * float64(hits[i]) / float64(len(ps[i].bytes)) }
	t.Logf("%d requests, %d prompt bytes, %.2f%% cacheable (%d bytes not); the summary request %.1f%% (%d bytes), the next %.1f%%, the first with the MCP server's tools %.1f%%",
		len(ps), total, 100*share, total-hit, pct(at), len(ps[at].bytes), pct(at+1), pct(mcpAt))

	// The summary request starts with the exact system prompt and tools
	// of the request before it.
	prev := ps[at-1]
	if !bytes.HasPrefix(ps[at].bytes, prev.bytes[:prev.head]) {
		t.Errorf("the summary request does not start with the session's system prompt and tools (%d of %d bytes shared)", hits[at], prev.head)
	}
	// It shares everything but its instruction with the request before.
	if hits[at] < len(ps[at].bytes)-ps[at].last {
		t.Errorf("the summary request shares %d of its %d bytes, want all but its last message (%d bytes)", hits[at], len(ps[at].bytes), ps[at].last)
	}
	// The MCP server's tools come after those sent before.
	if before, after := ps[mcpAt-1].tools, ps[mcpAt].tools; len(after) <= len(before) || !slices.Equal(after[:len(before)], before) {
		t.Errorf("tools before the MCP server connected %v, after %v", before, after)
	}
	if share < 0.98 {
		t.Errorf("%.1f%% of the session's prompt bytes are cacheable, want at least 98%%", 100*share)
	}
}
