package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

// tinyPNG is a 1×1 PNG, base64.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// visionServer is an OpenAI-compatible server that keeps the content of
// each request's last message and answers "seen".
type visionServer struct {
	*httptest.Server
	mu   sync.Mutex
	last []any
}

func newVisionServer(t *testing.T) *visionServer {
	t.Helper()
	v := &visionServer{}
	v.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		v.mu.Lock()
		v.last = append(v.last, req.Messages[len(req.Messages)-1].Content)
		v.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: "+delta(map[string]any{"content": "seen"})+"\n\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(v.Close)
	return v
}

func (v *visionServer) contents() []any {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]any(nil), v.last...)
}

// visionConfig makes local/eye (vision) the default model beside
// local/blind (none).
func visionConfig(url string) string {
	return fmt.Sprintf(`model = "local/eye"
tool_approval = "yolo"

[[providers.openai]]
name = "local"
base_url = "%s/v1"
max_attempts = 1

[[providers.openai.models]]
id = "eye"
context_window = 32768
tools = true
vision = true

[[providers.openai.models]]
id = "blind"
context_window = 32768
tools = true
`, url)
}

// wantImageParts is what the model must get for "what is this?" and
// tinyPNG.
func wantImageParts() []any {
	return []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + tinyPNG}},
	}
}

func TestServePromptImages(t *testing.T) {
	t.Parallel()
	srv := newVisionServer(t)
	e := newServeEnv(t)
	e.writeConfig(visionConfig(srv.URL))
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	sid := newSession(t, c)

	img := map[string]any{"type": "image", "mimeType": "image/png", "data": tinyPNG}
	var r promptResult
	if err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": "what is this?", "images": []any{img}}, &r); err != nil {
		t.Fatal(err)
	}
	if got := srv.contents(); len(got) != 1 || !reflect.DeepEqual(got[0], wantImageParts()) {
		t.Fatalf("the model got %+v, want %+v", got, wantImageParts())
	}
	raw, _ := base64.StdEncoding.DecodeString(tinyPNG)
	var shown []any
	for _, m := range c.Messages("rx/session/update") {
		var u struct{ Update map[string]any }
		_ = json.Unmarshal(m.Params, &u)
		if u.Update["sessionUpdate"] == "user_message_chunk" {
			shown, _ = u.Update["images"].([]any)
		}
	}
	if len(shown) != 1 || shown[0].(map[string]any)["size"] != float64(len(raw)) || shown[0].(map[string]any)["mimeType"] != "image/png" {
		t.Errorf("user_message_chunk images %+v", shown)
	}

	for _, tc := range []struct {
		name, model string
		img         map[string]any
		want        string
	}{
		{"no vision", "local/blind", img, "model local/blind does not accept images"},
		{"not base64", "local/eye", map[string]any{"type": "image", "mimeType": "image/png", "data": "%%%"}, "images[0]: data is not base64"},
		{"not an image block", "local/eye", map[string]any{"type": "audio", "mimeType": "audio/wav", "data": tinyPNG}, `images[0]: type "audio" is not "image"`},
		{"too large", "local/eye", map[string]any{"type": "image", "mimeType": "image/png", "data": base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))}, "may have 5242880 bytes together"},
	} {
		if err := c.Call(ctxT(t), "rx/session/setModel", map[string]any{"sessionId": sid, "model": tc.model}, nil); err != nil {
			t.Fatal(err)
		}
		err := c.Call(ctxT(t), "rx/session/prompt", map[string]any{"sessionId": sid, "prompt": "look", "images": []any{tc.img}}, nil)
		if rpcCode(err) != lspclient.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want invalid params saying %q", tc.name, err, tc.want)
		}
	}
	if n := len(srv.contents()); n != 1 {
		t.Errorf("refused prompts reached the model: %d requests", n)
	}
}
