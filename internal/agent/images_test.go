package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/providers/openai"
)

// pngBytes is a 1×1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// chatRecorder is a fake OpenAI-compatible server that keeps every
// request body and answers each with "ok".
type chatRecorder struct {
	mu     sync.Mutex
	bodies []map[string]any
}

func (c *chatRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"+
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
}

func (c *chatRecorder) requests() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]map[string]any(nil), c.bodies...)
}

// wireUserContents are the content members of a request's user messages.
func wireUserContents(body map[string]any) []any {
	var out []any
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "user" {
			out = append(out, mm["content"])
		}
	}
	return out
}

// imageHarness is an agent whose models are the built-in OpenAI-compatible
// provider on a recording server: test/eye takes images, test/m1 does not.
func imageHarness(t *testing.T) (*harness, *chatRecorder) {
	t.Helper()
	rec := &chatRecorder{}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	p, err := openai.New(openai.Config{Name: "test", BaseURL: srv.URL + "/v1", MaxAttempts: 1, Models: []openai.ModelConfig{
		{ID: "eye", ContextWindow: 1 << 20, Tools: true, Vision: true},
		{ID: "m1", ContextWindow: 1 << 20, Tools: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cat, err := providers.NewCatalog(p)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, newScripted(), func(o *Options) { o.Runtime = Static(cat) })
	return h, rec
}

func TestPromptImagesReachTheModelAndReload(t *testing.T) {
	t.Parallel()
	h, rec := imageHarness(t)
	s, err := h.agent.New(ctx(t), h.ws, "test/eye")
	if err != nil {
		t.Fatal(err)
	}
	img := Image{MimeType: "image/png", Data: pngBytes}
	if _, err := s.PromptInput(ctx(t), Input{Text: "what is this?", Images: []Image{img}}); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	wantParts := []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": url}},
	}
	reqs := rec.requests()
	if len(reqs) != 1 || !reflect.DeepEqual(wireUserContents(reqs[0]), []any{wantParts}) {
		t.Fatalf("requests %+v, want one whose user message is %+v", reqs, wantParts)
	}
	sum := sha256.Sum256(pngBytes)
	wantInfo := []ImageInfo{{MimeType: "image/png", Size: len(pngBytes), SHA256: hex.EncodeToString(sum[:])}}
	var shown []ImageInfo
	for _, u := range h.updates.of(s.ID()) {
		if u.Kind == UpdateUserMessage {
			shown = u.Images
		}
	}
	if !reflect.DeepEqual(shown, wantInfo) {
		t.Errorf("user message images %+v, want %+v", shown, wantInfo)
	}
	live := merged(h.updates.of(s.ID()))
	hist := s.History()
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}

	// The transcript names the image in the update and keeps its bytes
	// once, in the history message; a reload replays both.
	a := h.reopen()
	h.updates.reset(s.ID())
	loaded, err := a.Load(ctx(t), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	equalUpdates(t, h.updates.of(s.ID()), live)
	if !reflect.DeepEqual(loaded.History(), hist) {
		t.Fatalf("history after load %+v, want %+v", loaded.History(), hist)
	}
	raw := readTranscript(t, loaded.TranscriptPath())
	if n := strings.Count(raw, base64.StdEncoding.EncodeToString(pngBytes)); n != 1 {
		t.Errorf("transcript holds the image %d times, want once", n)
	}
	// The next turn sends the image again, with the history.
	if _, err := loaded.Prompt(ctx(t), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs = rec.requests()
	if got := wireUserContents(reqs[len(reqs)-1]); len(got) != 2 || !reflect.DeepEqual(got[0], wantParts) || got[1] != "and now?" {
		t.Errorf("second turn's user messages %+v", got)
	}
}

func TestPromptImagesRefused(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte{1}, MaxPromptImageBytes/2+1)
	for _, tc := range []struct {
		name, model string
		images      []Image
		want        string
	}{
		{"model without vision", "test/m1", []Image{{MimeType: "image/png", Data: pngBytes}}, "model test/m1 does not accept images"},
		{"not an image type", "test/eye", []Image{{MimeType: "image/svg+xml", Data: []byte("<svg/>")}}, `image 1: type "image/svg+xml" is not one of image/png, image/jpeg, image/gif, image/webp`},
		{"empty", "test/eye", []Image{{MimeType: "image/png"}}, "image 1 is empty"},
		{"too large together", "test/eye", []Image{{MimeType: "image/png", Data: big}, {MimeType: "image/jpeg", Data: big}}, "the images of a prompt may have 5242880 bytes together, these have 5242882"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, rec := imageHarness(t)
			s, err := h.agent.New(ctx(t), h.ws, tc.model)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.PromptInput(ctx(t), Input{Text: "look", Images: tc.images})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
			if n := len(rec.requests()); n != 0 || s.Turns() != 0 || len(h.updates.of(s.ID())) != 0 {
				t.Errorf("a refused prompt still ran: %d requests, %d turns, updates %v", n, s.Turns(), kinds(h.updates.of(s.ID())))
			}
			// The session goes on without images.
			if _, err := s.Prompt(ctx(t), "hello"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func readTranscript(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An input.receive interceptor sees the prompt's text only and its
// replacement changes the text; the images stay with the message, which
// context.prepare interceptors and the provider get with both.
func TestPromptImagesPassInterceptors(t *testing.T) {
	t.Parallel()
	ps := startPlugins(t, pluginSpec{id: "rw", intercepts: []extproto.HookPoint{extproto.InputReceive, extproto.ContextPrepare}, rules: map[extproto.HookPoint]rule{
		extproto.InputReceive: {Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"rewritten by rw"}`)},
	}})
	prov := newScripted(answer("ok"))
	prov.models[0].Vision = true
	h := newHarness(t, prov, onPlugins(ps))
	s := h.session()
	if _, err := s.PromptInput(ctx(t), Input{Text: "look", Images: []Image{{MimeType: "image/png", Data: pngBytes}}}); err != nil {
		t.Fatal(err)
	}
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	if in := logLines(t, ps.log, "rw payload input.receive "); len(in) != 1 || in[0] != `{"text":"look"}` {
		t.Errorf("input.receive payloads %q, want the text alone", in)
	}
	cp := logLines(t, ps.log, "rw payload context.prepare ")
	var seen struct{ Messages []extproto.ProviderMessage }
	if len(cp) != 1 || json.Unmarshal([]byte(cp[0]), &seen) != nil || len(seen.Messages) == 0 {
		t.Fatalf("context.prepare payloads %q", cp)
	}
	if last := seen.Messages[len(seen.Messages)-1]; last.Content != "rewritten by rw" || !reflect.DeepEqual(last.Images, []string{url}) {
		t.Errorf("context.prepare saw the user message %+v", last)
	}
	msgs := prov.requests()[0].Body.Messages
	if last := msgs[len(msgs)-1]; last.Role != extproto.RoleUser || last.Content != "rewritten by rw" || !reflect.DeepEqual(last.Images, []string{url}) {
		t.Errorf("the provider got %+v", last)
	}
}
