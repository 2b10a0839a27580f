package agent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/transcript"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/providers/openai"
)

// benchChunks is the answer size of a benchmark turn: 256 text chunks,
// about what a model streams for a paragraph or two.
const benchChunks = 256

// memProvider streams the benchmark answer from memory: the cost of the
// provider itself is nil, so a turn's time is the host's own.
type memProvider struct{ scripted }

func (p *memProvider) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	chunks := make([]extproto.ProviderChunk, 0, benchChunks+2)
	for i := range benchChunks {
		chunks = append(chunks, text(fmt.Sprintf("tok%d ", i)))
	}
	chunks = append(chunks, usage(100, benchChunks, "stop"), done())
	return &scriptStream{ctx: ctx, p: &p.scripted, step: step{chunks: chunks}}, nil
}

// sseServer streams an answer of n chunks as OpenAI server-sent events
// over loopback HTTP, all at once, or with pace between chunks as a model
// generating tokens would.
func sseServer(b *testing.B, n int, pace time.Duration) *httptest.Server {
	var events []string
	for i := range n {
		events = append(events, fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"tok%d \"}}]}\n\n", i))
	}
	events = append(events, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
		fmt.Sprintf("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":%d,\"total_tokens\":%d}}\n\ndata: [DONE]\n\n", n, n+100))
	all := strings.Join(events, "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if pace == 0 {
			_, _ = io.WriteString(w, all)
			return
		}
		for _, e := range events {
			time.Sleep(pace)
			_, _ = io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// httpProvider is the built-in OpenAI-compatible provider on an
// unpaced loopback server: the cheapest real provider there is.
func httpProvider(b *testing.B) providers.Provider { return openaiOn(b, sseServer(b, benchChunks, 0)) }

// pacedProvider streams 32 chunks a millisecond apart: 1000 tokens/s,
// faster than hosted models stream.
func pacedProvider(b *testing.B) providers.Provider {
	return openaiOn(b, sseServer(b, 32, time.Millisecond))
}

func openaiOn(b *testing.B, srv *httptest.Server) providers.Provider {
	p, err := openai.New(openai.Config{Name: "test", BaseURL: srv.URL + "/v1", MaxAttempts: 1, Models: []openai.ModelConfig{{ID: "m1", ContextWindow: 1 << 20, Tools: true}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p
}

// recorder keeps the last request a provider got, so the direct baseline
// sends exactly what the agent sent.
type recorder struct {
	providers.Provider
	last providers.Request
}

func (r *recorder) Stream(ctx context.Context, req providers.Request) (providers.Stream, error) {
	r.last = req
	return r.Provider.Stream(ctx, req)
}

// BenchmarkTurnOverhead measures one agent turn (one provider round of
// 256 chunks, or 32 paced ones, every hook point of the round, the
// transcript written)
// against calling the same provider directly with the request the agent
// sent (open, drain, assemble), interleaved in one loop so machine noise
// hits both alike. It reports both medians, their ratio and the host's
// overhead per turn. A session serves 16 turns; creating and closing it,
// and waiting for a turn's background fsync, are not timed (the fsync
// alone is BenchmarkTranscriptSync).
func BenchmarkTurnOverhead(b *testing.B) {
	for _, bc := range []struct {
		name      string
		provider  func(*testing.B) providers.Provider
		observers int
	}{
		{"memory", func(*testing.B) providers.Provider { return &memProvider{*newScripted()} }, 0},
		{"http", httpProvider, 0},
		{"http-4-observers", httpProvider, 4},
		{"paced", pacedProvider, 0},
		{"paced-4-observers", pacedProvider, 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			rec := &recorder{Provider: bc.provider(b)}
			cat, err := providers.NewCatalog(rec)
			if err != nil {
				b.Fatal(err)
			}
			rt := Static(cat)
			if bc.observers > 0 {
				rt = onManager(benchObservers(b, bc.observers), rt)
			}
			a, err := NewAgent(Options{Home: b.TempDir(), Settings: Settings{Approval: ApproveYolo}, Editor: &fakeEditor{}, Runtime: rt})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = a.Close(context.Background()) })
			ws := b.TempDir()
			ctx := context.Background()
			var s *Session
			turn := func(i int) time.Duration {
				if i%16 == 0 {
					if s != nil {
						_ = s.Close(ctx)
					}
					if s, err = a.New(ctx, ws, "test/m1"); err != nil {
						b.Fatal(err)
					}
				}
				began := time.Now()
				if _, err := s.Prompt(ctx, "hello"); err != nil {
					b.Fatal(err)
				}
				d := time.Since(began)
				s.mu.Lock()
				err := s.waitSyncLocked()
				s.mu.Unlock()
				if err != nil {
					b.Fatal(err)
				}
				return d
			}
			direct := func() time.Duration {
				body := rec.last.Body
				began := time.Now()
				st, err := cat.Open(ctx, "test/m1", "", body)
				if err == nil {
					_, err = providers.Collect(st)
				}
				if err != nil {
					b.Fatal(err)
				}
				return time.Since(began)
			}
			turn(0)
			direct()
			var ds, ts []time.Duration
			b.ResetTimer()
			for i := range b.N {
				ts = append(ts, turn(i+1))
				ds = append(ds, direct())
			}
			b.StopTimer()
			d, t := median(ds), median(ts)
			b.ReportMetric(float64(d.Microseconds()), "direct-µs/turn")
			b.ReportMetric(float64(t.Microseconds()), "agent-µs/turn")
			b.ReportMetric(float64(t-d)/1e3, "overhead-µs/turn")
			b.ReportMetric(float64(t)/float64(d), "ratio")
		})
	}
}

// BenchmarkTranscriptSync is the fsync a turn issues (in the background
// when no plugin rules on session.save), on the same file system.
func BenchmarkTranscriptSync(b *testing.B) {
	log, err := transcript.Create(b.TempDir(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer log.Close()
	for b.Loop() {
		if err := log.Append(map[string]string{"type": "update", "text": "a short record of one turn"}); err != nil {
			b.Fatal(err)
		}
		if err := log.Sync(); err != nil {
			b.Fatal(err)
		}
	}
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// benchObservers starts n plugins that intercept every point and answer
// continue: each hook of a turn then costs n sidecar round trips.
func benchObservers(b *testing.B, n int) *exthost.Manager {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	mgr := exthost.NewManager(exthost.ManagerOptions{SessionID: "bench", WorkspaceRoot: b.TempDir()})
	b.Cleanup(mgr.Close)
	var list []*exthost.Plugin
	for i := range n {
		list = append(list, &exthost.Plugin{
			ID:      fmt.Sprintf("obs%d", i),
			Root:    b.TempDir(),
			Version: "1.0.0",
			Runtime: manifest.Runtime{
				Command:      exe,
				Env:          map[string]string{envChild: "plugin", envLog: os.DevNull},
				Intercepts:   allPoints,
				Capabilities: []extproto.Capability{extproto.CapInterceptors},
			},
		})
	}
	if _, err := mgr.Load(context.Background(), list); err != nil {
		b.Fatal(err)
	}
	return mgr
}
