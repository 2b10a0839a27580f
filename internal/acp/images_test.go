package acp

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

	acpsdk "github.com/coder/acp-go-sdk"
)

const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// contentRecorder is an OpenAI-compatible server that keeps the content
// of each request's last message and answers "seen".
type contentRecorder struct {
	*httptest.Server
	mu   sync.Mutex
	last []any
}

func newContentRecorder(t *testing.T) *contentRecorder {
	t.Helper()
	c := &contentRecorder{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content any `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.last = append(c.last, req.Messages[len(req.Messages)-1].Content)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"seen"}}]}`+"\n\n"+
			`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *contentRecorder) contents() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]any(nil), c.last...)
}

func TestPromptImageBlocks(t *testing.T) {
	t.Parallel()
	srv := newContentRecorder(t)
	cfg := fmt.Sprintf(`tool_approval = "yolo"

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
`, srv.URL)
	e := serveOn(t, t.TempDir(), t.TempDir(), cfg, "local/eye", nil)
	resp := e.raw(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	if !strings.Contains(string(resp["result"]), `"image":true`) {
		t.Errorf("initialize does not advertise promptCapabilities.image: %s", resp["result"])
	}
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	img := acpsdk.ImageBlock(tinyPNG, "image/png")
	if _, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("what is this?"), img}}); err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"type": "text", "text": "what is this?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + tinyPNG}},
	}
	if got := srv.contents(); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("the model got %+v, want %+v", got, want)
	}

	// Images alone are a prompt too.
	if _, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{img}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.contents(); len(got) != 2 || !reflect.DeepEqual(got[1], want[1:]) {
		t.Fatalf("the model got %+v for images alone, want %+v", got, want[1:])
	}

	big := base64.StdEncoding.EncodeToString(make([]byte, 5<<20+1))
	for _, tc := range []struct {
		name, model string
		block       acpsdk.ContentBlock
		want        string
	}{
		{"no vision", "local/blind", img, "model local/blind does not accept images"},
		{"not base64", "local/eye", acpsdk.ImageBlock("%%%", "image/png"), "prompt[1]: image data is not base64"},
		{"too large", "local/eye", acpsdk.ImageBlock(big, "image/png"), "may have 5242880 bytes together"},
	} {
		if _, err := e.set(t, sess.SessionId, "model", tc.model); err != nil {
			t.Fatal(err)
		}
		_, err := e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("look"), tc.block}})
		if code, msg := rpcCode(err); code != codeInvalidParams || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: error %d %q, want invalid params saying %q", tc.name, code, msg, tc.want)
		}
	}
	if n := len(srv.contents()); n != 2 {
		t.Errorf("refused prompts reached the model: %d requests", n)
	}
}
