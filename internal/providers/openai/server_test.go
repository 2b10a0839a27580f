package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// reply is what the fake server does for one request.
type reply struct {
	status  int
	header  map[string]string
	body    string   // non-streamed body (error replies)
	events  []string // SSE data payloads, each sent as its own flushed event
	raw     string   // raw SSE text, sent after events
	done    bool     // send data: [DONE] at the end
	abort   bool     // drop the connection after what was sent
	hang    bool     // then wait for the client to go away
	noWrite bool     // abort before writing anything, not even headers
}

// fakeServer is an OpenAI-compatible server that speaks real SSE over HTTP
// and answers each request with the next scripted reply (the last one
// repeats).
type fakeServer struct {
	*httptest.Server
	t       *testing.T
	mu      sync.Mutex
	replies []reply
	got     []recorded
	// gone is closed when a hanging handler saw its client disconnect.
	gone chan struct{}
}

type recorded struct {
	header http.Header
	body   map[string]any
}

func newFakeServer(t *testing.T, replies ...reply) *fakeServer {
	t.Helper()
	fs := &fakeServer{t: t, replies: replies, gone: make(chan struct{})}
	fs.Server = httptest.NewServer(http.HandlerFunc(fs.serve))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &body)
	fs.mu.Lock()
	n := len(fs.got)
	fs.got = append(fs.got, recorded{header: r.Header.Clone(), body: body})
	rp := fs.replies[min(n, len(fs.replies)-1)]
	fs.mu.Unlock()

	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.Error(w, "wrong endpoint "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	if rp.noWrite {
		panic(http.ErrAbortHandler)
	}
	for k, v := range rp.header {
		w.Header().Set(k, v)
	}
	if rp.status != 0 && rp.status != http.StatusOK {
		w.WriteHeader(rp.status)
		io.WriteString(w, rp.body)
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(http.StatusOK)
	flush := func() { w.(http.Flusher).Flush() }
	flush()
	for _, e := range rp.events {
		io.WriteString(w, "data: "+e+"\n\n")
		flush()
	}
	if rp.raw != "" {
		io.WriteString(w, rp.raw)
		flush()
	}
	if rp.done {
		io.WriteString(w, "data: [DONE]\n\n")
		flush()
	}
	if rp.hang {
		<-r.Context().Done()
		close(fs.gone)
		return
	}
	if rp.abort {
		panic(http.ErrAbortHandler)
	}
}

func (fs *fakeServer) requests() []recorded {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]recorded(nil), fs.got...)
}

const testKey = "tk-9f3ZqL0v-Xw7sP2mN8rB4yC6"

// newTestProvider returns a provider for fs whose key comes from a fake
// environment and whose retry pauses are recorded instead of slept.
func newTestProvider(t *testing.T, fs *fakeServer, mutate func(*Config)) (*Provider, *[]time.Duration) {
	t.Helper()
	cfg := Config{
		Name:      "local",
		BaseURL:   fs.URL + "/v1",
		APIKeyEnv: "RX_TEST_LLM_CRED",
		Headers:   map[string]string{"X-Title": "rx-bridge-test"},
		Models: []ModelConfig{
			{ID: "qwen2.5-coder", Tools: true, Vision: true, ContextWindow: 32768},
			{ID: "Deep/R1", RefName: "r1", Reasoning: true, Efforts: []string{"low", "high"}, DefaultEffort: "low", ReasoningRoundTrip: true},
		},
		MaxAttempts: 3,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	env := map[string]string{"RX_TEST_LLM_CRED": testKey}
	p, err := New(cfg, WithLookupEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var slept []time.Duration
	p.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		slept = append(slept, d)
		mu.Unlock()
		return ctx.Err()
	}
	p.rnd = func() float64 { return 0 }
	t.Cleanup(p.Close)
	return p, &slept
}

func userRequest(ref, text string) providers.Request {
	return providers.Request{Ref: ref, Body: extproto.ProviderRequest{
		Messages: []extproto.ProviderMessage{{Role: extproto.RoleUser, Content: text}},
		Tools:    []extproto.ProviderToolSchema{},
	}}
}

// drain reads s to its end and returns every chunk and the final error
// (nil after a clean io.EOF).
func drain(t *testing.T, s providers.Stream) ([]extproto.ProviderChunk, error) {
	t.Helper()
	defer s.Close()
	var out []extproto.ProviderChunk
	for {
		ch, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
}

func chunkTypes(chs []extproto.ProviderChunk) string {
	var b []string
	for _, c := range chs {
		b = append(b, string(c.Type))
	}
	return strings.Join(b, " ")
}
