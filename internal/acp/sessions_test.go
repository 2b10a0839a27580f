package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/internal/agent"
)

// modelServer is an OpenAI-compatible server playing two models with
// reasoning efforts (local/think, local/deep; echo-provider's models
// have none). A user message "call <tool> <json>" calls that tool, a
// tool result is quoted, anything else is echoed. It records each
// request's model and effort.
type modelServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // "<model>/<effort>" per request
}

func newModelServer(t *testing.T) *modelServer {
	t.Helper()
	m := &modelServer{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Effort   string `json:"reasoning_effort"`
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.seen = append(m.seen, req.Model+"/"+req.Effort)
		m.mu.Unlock()
		last := req.Messages[len(req.Messages)-1]
		content, _ := last.Content.(string)
		delta := func(d map[string]any) string {
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d}}})
			return string(b)
		}
		var events []string
		finish := "stop"
		if rest, ok := strings.CutPrefix(content, "call "); ok && last.Role == "user" {
			name, args, _ := strings.Cut(rest, " ")
			events = append(events, delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function",
				"function": map[string]any{"name": name, "arguments": args}}}}))
			finish = "tool_calls"
		} else {
			if last.Role == "tool" {
				content = "The tool returned: " + content
			}
			events = append(events, delta(map[string]any{"content": content}))
		}
		events = append(events, `{"choices":[{"index":0,"delta":{},"finish_reason":"`+finish+`"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120}}`)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			_, _ = io.WriteString(w, "data: "+e+"\n\n")
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *modelServer) requests() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.seen...)
}

// modelConfig is a config.toml with srv's models (local/think with a
// 32768-token window, local/deep with an unknown one) and approval.
func modelConfig(srv *modelServer, approval string) string {
	return fmt.Sprintf(`tool_approval = %q

[[providers.openai]]
name = "local"
base_url = "%s/v1"
max_attempts = 1

[[providers.openai.models]]
id = "think"
context_window = 32768
tools = true
efforts = ["low", "high"]

[[providers.openai.models]]
id = "deep"
tools = true
efforts = ["low", "high", "max"]
`, approval, srv.URL)
}

// gatedClient is the test client, but a permission request waits for
// the test (asked, then allow).
type gatedClient struct {
	*testClient
	asked     chan acpsdk.RequestPermissionRequest
	allow     chan bool
	withdrawn chan struct{} // a request the agent cancelled
}

func newGatedClient() *gatedClient {
	return &gatedClient{testClient: &testClient{}, asked: make(chan acpsdk.RequestPermissionRequest, 1), allow: make(chan bool), withdrawn: make(chan struct{}, 1)}
}

// answer answers the waiting permission request; it fails the test if
// the agent withdrew it.
func (c *gatedClient) answer(t *testing.T, ok bool) {
	t.Helper()
	select {
	case c.allow <- ok:
	case <-c.withdrawn:
		t.Fatal("the permission request was withdrawn: its prompt was cancelled")
	}
}

func (c *gatedClient) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.asked <- p
	select {
	case ok := <-c.allow:
		if ok {
			return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(optAllowOnce)}, nil
		}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(optRejectOnce)}, nil
	case <-ctx.Done():
		c.withdrawn <- struct{}{}
		return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeCancelled()}, nil
	}
}

// serveEnv is one run of Serve over pipes: the Go SDK's client, and raw
// frames for what the SDK's client cannot send (session/delete).
type serveEnv struct {
	*acpEnv
	in     io.Writer
	mu     sync.Mutex
	nextID int
	raws   map[string]chan json.RawMessage // awaited raw responses by id
	nulls  chan json.RawMessage            // responses with a null id
}

// serveOn starts Serve on home (with echo-provider installed once) and
// config.toml cfg ("" for none); client answers the agent's requests
// (nil: allow every tool call once).
func serveOn(t *testing.T, home, ws, cfg, model string, client acpsdk.Client) *serveEnv {
	t.Helper()
	if _, err := os.Stat(filepath.Join(home, "plugins")); err != nil {
		examplestest.Install(t, home, "echo-provider")
	}
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tc := &testClient{}
	if client == nil {
		client = tc
	}
	if g, ok := client.(*gatedClient); ok {
		tc = g.testClient
	}
	e := &serveEnv{acpEnv: &acpEnv{home: home, ws: ws, client: tc}, raws: map[string]chan json.RawMessage{}, nulls: make(chan json.RawMessage, 16)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	sdkR, sdkW := io.Pipe()
	e.in = inW
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, inR, outW, Options{Home: home, Workspace: ws, Model: model})
		_ = outW.Close()
	}()
	// The tap: the responses to raw requests go to the test, every other
	// frame to the SDK's client.
	go func() {
		defer sdkW.Close()
		r := bufio.NewReader(outR)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var msg struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.Unmarshal(line, &msg)
				var id string
				if msg.Method == "" && string(msg.ID) == "null" {
					e.nulls <- json.RawMessage(bytes.TrimSpace(line))
					continue
				}
				if msg.Method == "" && json.Unmarshal(msg.ID, &id) == nil && strings.HasPrefix(id, "raw-") {
					e.mu.Lock()
					ch := e.raws[id]
					e.mu.Unlock()
					ch <- json.RawMessage(bytes.TrimSpace(line))
					continue
				}
				if _, werr := sdkW.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	e.conn = acpsdk.NewClientSideConnection(client, inW, sdkR)
	if _, err := e.conn.Initialize(ctxT(t), acpsdk.InitializeRequest{ProtocolVersion: ProtocolVersion, ClientCapabilities: acpsdk.ClientCapabilities{}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// raw sends a request as the client's bytes (a string id) and returns
// the whole response frame.
func (e *serveEnv) raw(t *testing.T, method string, params any) map[string]json.RawMessage {
	t.Helper()
	return e.rawAll(t, rawCall{method, params})[0]
}

// rawCall is one request of rawAll.
type rawCall struct {
	method string
	params any
}

// rawAll sends requests as the client's bytes (string ids), all in one
// write so the agent reads them in this order, and returns their whole
// response frames.
func (e *serveEnv) rawAll(t *testing.T, calls ...rawCall) []map[string]json.RawMessage {
	t.Helper()
	var frames []byte
	ids := make([]string, len(calls))
	chans := make([]chan json.RawMessage, len(calls))
	for i, c := range calls {
		e.mu.Lock()
		e.nextID++
		ids[i] = fmt.Sprintf("raw-%d", e.nextID)
		chans[i] = make(chan json.RawMessage, 1)
		e.raws[ids[i]] = chans[i]
		e.mu.Unlock()
		b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ids[i], "method": c.method, "params": c.params})
		if err != nil {
			t.Fatal(err)
		}
		frames = append(append(frames, b...), '\n')
	}
	if _, err := e.in.Write(frames); err != nil {
		t.Fatal(err)
	}
	out := make([]map[string]json.RawMessage, len(calls))
	for i, ch := range chans {
		select {
		case line := <-ch:
			if err := json.Unmarshal(line, &out[i]); err != nil {
				t.Fatal(err)
			}
			if string(out[i]["id"]) != `"`+ids[i]+`"` {
				t.Fatalf("response id %s, want %q", out[i]["id"], ids[i])
			}
		case <-ctxT(t).Done():
			t.Fatalf("no response to %s", calls[i].method)
		}
	}
	return out
}

func (e *serveEnv) delete(t *testing.T, id acpsdk.SessionId) map[string]json.RawMessage {
	t.Helper()
	return e.raw(t, "session/delete", map[string]any{"sessionId": id})
}

func (e *serveEnv) prompt(t *testing.T, id acpsdk.SessionId, text string) (acpsdk.PromptResponse, error) {
	t.Helper()
	return e.conn.Prompt(ctxT(t), acpsdk.PromptRequest{SessionId: id, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
}

func (e *serveEnv) set(t *testing.T, id acpsdk.SessionId, opt, value string) (map[string]string, error) {
	t.Helper()
	res, err := e.conn.SetSessionConfigOption(ctxT(t), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: acpsdk.SessionConfigId(opt), Value: acpsdk.SessionConfigValueId(value)}})
	return current(res.ConfigOptions), err
}

func (e *serveEnv) listed(t *testing.T) []acpsdk.SessionId {
	t.Helper()
	res, err := e.conn.ListSessions(ctxT(t), acpsdk.ListSessionsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []acpsdk.SessionId
	for _, s := range res.Sessions {
		ids = append(ids, s.SessionId)
	}
	return ids
}

func rpcCode(err error) (int, string) {
	var re *acpsdk.RequestError
	if !errors.As(err, &re) {
		return 0, fmt.Sprint(err)
	}
	return re.Code, re.Message
}

func contains(ids []acpsdk.SessionId, id acpsdk.SessionId) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func TestInitializeAdvertisesSessionDelete(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	resp := e.raw(t, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}})
	var res struct {
		ProtocolVersion   int
		AgentCapabilities struct {
			LoadSession         bool
			SessionCapabilities map[string]json.RawMessage
		}
		AgentInfo struct{ Name string }
	}
	if err := json.Unmarshal(resp["result"], &res); err != nil {
		t.Fatalf("%s: %v", resp["result"], err)
	}
	sc := res.AgentCapabilities.SessionCapabilities
	for _, k := range []string{"list", "resume", "close", "delete", "additionalDirectories"} {
		if string(sc[k]) != "{}" {
			t.Errorf("sessionCapabilities.%s = %s in %s", k, sc[k], resp["result"])
		}
	}
	if res.ProtocolVersion != 1 || !res.AgentCapabilities.LoadSession || res.AgentInfo.Name != "rx-bridge" {
		t.Errorf("initialize result %s", resp["result"])
	}
	// Bad params are still the SDK's -32602; an unknown "_" method -32601.
	if resp := e.raw(t, "initialize", []int{1}); !strings.Contains(string(resp["error"]), `"code":-32602`) {
		t.Errorf("bad initialize: %s", resp["error"])
	}
	if resp := e.raw(t, "_rx-bridge/nothing", map[string]any{}); !strings.Contains(string(resp["error"]), `"code":-32601`) {
		t.Errorf("unknown extension method: %s", resp["error"])
	}
}

// TestE2ESessionListResumeAndDelete: a session is listed, resumed
// (without replay, with its modes and config) and deleted: gone from the
// list and the home, not loadable; deleting again is fine, a path-like
// id is not.
func TestE2ESessionListResumeAndDelete(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.SessionId
	if _, err := e.prompt(t, id, "hello there"); err != nil {
		t.Fatal(err)
	}
	if !contains(e.listed(t), id) {
		t.Fatalf("%s not listed", id)
	}
	if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	before := len(e.client.seen())
	res, err := e.conn.ResumeSession(ctxT(t), acpsdk.ResumeSessionRequest{SessionId: id, Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes == nil || res.Modes.CurrentModeId != "normal" || current(res.ConfigOptions)["model"] != "plugin/echo-provider/echo/small" {
		t.Errorf("resume result: modes %+v config %v", res.Modes, current(res.ConfigOptions))
	}
	for _, u := range e.client.seen()[before:] {
		if u.AgentMessageChunk != nil || u.UserMessageChunk != nil {
			t.Errorf("resume replayed %+v", u)
		}
	}
	resp := e.delete(t, id)
	if string(resp["result"]) != "{}" || resp["error"] != nil {
		t.Fatalf("session/delete: %v", resp)
	}
	if contains(e.listed(t), id) {
		t.Errorf("%s still listed after session/delete", id)
	}
	if left, _ := filepath.Glob(filepath.Join(e.home, agent.SessionsDir, string(id)+"*")); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
	_, err = e.conn.LoadSession(ctxT(t), acpsdk.LoadSessionRequest{SessionId: id, Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	// (The id itself is masked: redaction takes its random part for a
	// token.)
	if code, msg := rpcCode(err); code != -32602 || !strings.HasPrefix(msg, "session/load: unknown session ") {
		t.Errorf("load after delete: %d %q", code, msg)
	}
	if _, err := e.prompt(t, id, "still there?"); err == nil {
		t.Error("prompt after delete: no error")
	}
	if resp := e.delete(t, id); string(resp["result"]) != "{}" {
		t.Errorf("second delete: %v", resp)
	}
	if resp := e.delete(t, "../x"); !strings.Contains(string(resp["error"]), `"message":"session/delete: invalid sessionId"`) ||
		!strings.Contains(string(resp["error"]), `"code":-32602`) {
		t.Errorf("path-like id: %s", resp["error"])
	}
}

// TestE2EDeleteActiveSessionDoesNotRecreateFiles: deleting a session
// whose turn waits on a permission prompt ends the turn (cancelled) and
// removes its files, and nothing writes them again afterwards.
func TestE2EDeleteActiveSessionDoesNotRecreateFiles(t *testing.T) {
	t.Parallel()
	client := newGatedClient()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := serveOn(t, t.TempDir(), ws, "", "plugin/echo-provider/echo/small", client)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		res acpsdk.PromptResponse
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := e.prompt(t, sess.SessionId, `call apply_edit {"path":"a.txt","content":"beta"}`)
		done <- result{res, err}
	}()
	<-client.asked
	if resp := e.delete(t, sess.SessionId); string(resp["result"]) != "{}" {
		t.Fatalf("session/delete: %v", resp)
	}
	r := <-done
	if r.err != nil || r.res.StopReason != acpsdk.StopReasonCancelled {
		t.Errorf("the deleted session's prompt: %+v %v", r.res, r.err)
	}
	// Whatever the ended turn still had to do is done once its prompt
	// answered; a list and another session's turn run after it.
	other, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(t, other.SessionId, "after"); err != nil {
		t.Fatal(err)
	}
	if contains(e.listed(t), sess.SessionId) {
		t.Error("deleted session listed")
	}
	if left, _ := filepath.Glob(filepath.Join(e.home, agent.SessionsDir, string(sess.SessionId)+"*")); len(left) != 0 {
		t.Errorf("files recreated: %v", left)
	}
}

// TestServeSessionClose: close ends the session (prompts are refused,
// it is no longer open) but keeps it stored; an unknown id is fine.
func TestServeSessionClose(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(t, sess.SessionId, "hi"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []acpsdk.SessionId{sess.SessionId, sess.SessionId, "20990101T000000-000000000000"} {
		if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: id}); err != nil {
			t.Errorf("close %s: %v", id, err)
		}
	}
	_, err = e.prompt(t, sess.SessionId, "again")
	if code, msg := rpcCode(err); code != -32602 || !strings.HasPrefix(msg, "session/prompt: unknown session ") {
		t.Errorf("prompt after close: %d %q", code, msg)
	}
	if !contains(e.listed(t), sess.SessionId) {
		t.Error("a closed session is no longer listed")
	}
}

// A client closing a session and loading it again at once sends
// session/close and session/load back to back. The SDK runs each on its
// own goroutine; the load used to run first now and then (then the close
// closed the session just loaded: the next prompt found no session) or
// meet the transcript still held ("open in another process").
func TestServeLoadRightAfterClose(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := map[string]any{"sessionId": sess.SessionId}
	load := map[string]any{"sessionId": sess.SessionId, "cwd": e.ws, "mcpServers": []any{}}
	for i := range 8 {
		if _, err := e.prompt(t, sess.SessionId, fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatalf("round %d: prompt: %v", i, err)
		}
		for j, r := range e.rawAll(t, rawCall{"session/close", id}, rawCall{"session/load", load}) {
			if r["error"] != nil {
				t.Fatalf("round %d: request %d answered %s", i, j, r["error"])
			}
		}
	}
	if _, err := e.prompt(t, sess.SessionId, "last"); err != nil {
		t.Fatalf("the session loaded last is not open: %v", err)
	}
}

// TestServeSessionAxesRestoreFromMetadata: model, effort, tool approval
// and mode are stored with the session: load and resume in a new
// process restore each of them.
func TestServeSessionAxesRestoreFromMetadata(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t)
	home, ws := t.TempDir(), t.TempDir()
	cfg := modelConfig(srv, "ask")
	var id acpsdk.SessionId
	func() {
		e := serveOn(t, home, ws, cfg, "local/think", nil)
		sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		id = sess.SessionId
		got := current(sess.ConfigOptions)
		if got["model"] != "local/think" || got["effort"] != "auto" || got["tool_approval"] != "ask" || sess.Modes.CurrentModeId != "normal" {
			t.Fatalf("new session: %v, mode %s", got, sess.Modes.CurrentModeId)
		}
		for _, kv := range [][2]string{{"model", "local/deep"}, {"effort", "max"}, {"tool_approval", "auto"}} {
			if _, err := e.set(t, id, kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: "plan"}); err != nil {
			t.Fatal(err)
		}
		if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: id}); err != nil {
			t.Fatal(err)
		}
	}()
	// Another Serve on the home (a new process for the transcripts: it
	// has its own agent, and the session's lock is free once closed).
	for _, how := range []string{"load", "resume"} {
		e := serveOn(t, home, ws, "", "local/think", nil)
		var modes *acpsdk.SessionModeState
		var opts []acpsdk.SessionConfigOption
		var err error
		if how == "load" {
			var r acpsdk.LoadSessionResponse
			r, err = e.conn.LoadSession(ctxT(t), acpsdk.LoadSessionRequest{SessionId: id, Cwd: ws, McpServers: []acpsdk.McpServer{}})
			modes, opts = r.Modes, r.ConfigOptions
		} else {
			var r acpsdk.ResumeSessionResponse
			r, err = e.conn.ResumeSession(ctxT(t), acpsdk.ResumeSessionRequest{SessionId: id, Cwd: ws, McpServers: []acpsdk.McpServer{}})
			modes, opts = r.Modes, r.ConfigOptions
		}
		if err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		got := current(opts)
		if got["model"] != "local/deep" || got["effort"] != "max" || got["tool_approval"] != "auto" || modes == nil || modes.CurrentModeId != "plan" {
			t.Errorf("%s restored %v, mode %+v", how, got, modes)
		}
		if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: id}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestServeSessionLoadFallsBackFromStaleSavedModel: a session whose
// stored model is gone from the catalog loads on the default model,
// with a warning.
func TestServeSessionLoadFallsBackFromStaleSavedModel(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t)
	home, ws := t.TempDir(), t.TempDir()
	e := serveOn(t, home, ws, modelConfig(srv, "ask"), "local/think", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.set(t, sess.SessionId, "effort", "high"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.conn.CloseSession(ctxT(t), acpsdk.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	// The local provider is gone; the default is echo-provider's model.
	e2 := serveOn(t, home, ws, `model = "plugin/echo-provider/echo/small"`+"\n", "", nil)
	res, err := e2.conn.LoadSession(ctxT(t), acpsdk.LoadSessionRequest{SessionId: sess.SessionId, Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	got := current(res.ConfigOptions)
	if got["model"] != "plugin/echo-provider/echo/small" || got["effort"] != "" {
		t.Errorf("loaded config %v", got)
	}
	var text string
	for _, u := range e2.client.seen() {
		if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
			text += c.Content.Text.Text
		}
	}
	if !strings.Contains(text, "[warning] the session's model local/think is no longer available") || !strings.Contains(text, "the default model plugin/echo-provider/echo/small") {
		t.Errorf("no fallback warning in %q", text)
	}
	if r, err := e2.prompt(t, sess.SessionId, "still works"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("prompt on the fallback model: %+v %v", r, err)
	}
}

// TestServeSessionConfigQueuesDuringActivePrompt: a model and effort
// change during a turn is acknowledged at once with the requested state
// (and config_option_update); the running turn keeps the model and
// effort it started with, the next turn runs on the new ones. A second
// prompt meanwhile is refused.
func TestServeSessionConfigQueuesDuringActivePrompt(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t)
	client := newGatedClient()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := serveOn(t, t.TempDir(), ws, modelConfig(srv, "ask"), "local/think", client)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.SessionId
	done := make(chan error, 1)
	go func() { _, err := e.prompt(t, id, `call apply_edit {"path":"a.txt","content":"beta"}`); done <- err }()
	<-client.asked
	got, err := e.set(t, id, "model", "local/deep")
	if err != nil || got["model"] != "local/deep" {
		t.Fatalf("set model mid-turn: %v %v", got, err)
	}
	if got, err = e.set(t, id, "effort", "max"); err != nil || got["model"] != "local/deep" || got["effort"] != "max" {
		t.Fatalf("set effort mid-turn: %v %v", got, err)
	}
	_, err = e.prompt(t, id, "me too")
	if code, msg := rpcCode(err); code != -32600 || msg != "session/prompt: session already has an active prompt" {
		t.Errorf("second prompt: %d %q", code, msg)
	}
	client.answer(t, true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(t, id, "next turn"); err != nil {
		t.Fatal(err)
	}
	// The running turn's two requests on think, the next on deep/max.
	if got := strings.Join(srv.requests(), " "); got != "think/ think/ deep/max" {
		t.Errorf("requests (model/effort): %s", got)
	}
	var updates int
	for _, u := range e.client.seen() {
		if u.ConfigOptionUpdate != nil {
			updates++
		}
	}
	if updates < 2 {
		t.Errorf("%d config_option_update", updates)
	}
}

// TestServeRejectsConcurrentPromptForSameSession: while a turn runs, a
// second prompt for the same session is -32600; another session runs.
func TestServeRejectsConcurrentPromptForSameSession(t *testing.T) {
	t.Parallel()
	client := newGatedClient()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", client)
	a, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := e.prompt(t, a.SessionId, `call apply_edit {"path":"a.txt","content":"beta"}`)
		done <- err
	}()
	<-client.asked
	_, err = e.prompt(t, a.SessionId, "again")
	if code, msg := rpcCode(err); code != -32600 || msg != "session/prompt: session already has an active prompt" {
		t.Errorf("concurrent prompt: %d %q", code, msg)
	}
	if r, err := e.prompt(t, b.SessionId, "other session"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("other session: %+v %v", r, err)
	}
	client.answer(t, true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestServeLegacyModeAliasesRemainCompatible: the reference's legacy
// mode ids set normal mode and the tool approval (ask, yolo), with a
// config_option_update; an unknown id is -32602.
func TestServeLegacyModeAliasesRemainCompatible(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.SessionId
	lastApproval := func() string {
		v := ""
		for _, u := range e.client.seen() {
			if u.ConfigOptionUpdate != nil {
				v = current(u.ConfigOptionUpdate.ConfigOptions)["tool_approval"]
			}
		}
		return v
	}
	for _, tc := range []struct{ mode, approval string }{{"auto", "yolo"}, {"default", "ask"}, {"auto", "yolo"}} {
		if _, err := e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: acpsdk.SessionModeId(tc.mode)}); err != nil {
			t.Fatal(err)
		}
		if got := lastApproval(); got != tc.approval {
			t.Errorf("set_mode %s: config_option_update tool_approval %q, want %q", tc.mode, got, tc.approval)
		}
	}
	for _, u := range e.client.seen() {
		if u.CurrentModeUpdate != nil {
			t.Errorf("legacy alias from normal sent %+v", u.CurrentModeUpdate)
		}
	}
	_, err = e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: "goal"})
	if code, msg := rpcCode(err); code != -32602 || msg != "session/set_mode: unknown modeId goal" {
		t.Errorf("goal: %d %q", code, msg)
	}
}

// TestE2ESessionModes: new sessions offer normal and plan (no goal) in
// normal; in plan mode an edit is refused with a tool error naming plan
// mode and the file is unchanged; back in normal the edit lands. Each
// change is a current_mode_update.
func TestE2ESessionModes(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := serveOn(t, t.TempDir(), ws, "", "plugin/echo-provider/echo/small", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	id := sess.SessionId
	var ids []string
	for _, m := range sess.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	if sess.Modes.CurrentModeId != "normal" || strings.Join(ids, ",") != "normal,plan" {
		t.Fatalf("modes %+v", sess.Modes)
	}
	modes := func() []string {
		var out []string
		for _, u := range e.client.seen() {
			if u.CurrentModeUpdate != nil {
				out = append(out, string(u.CurrentModeUpdate.CurrentModeId))
			}
		}
		return out
	}
	edit := `call apply_edit {"path":"a.txt","content":"beta"}`
	for _, tc := range []struct {
		mode, file string
		status     acpsdk.ToolCallStatus
	}{{"plan", "alpha", acpsdk.ToolCallStatusFailed}, {"normal", "beta", acpsdk.ToolCallStatusCompleted}} {
		if _, err := e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: acpsdk.SessionModeId(tc.mode)}); err != nil {
			t.Fatal(err)
		}
		from := len(e.client.seen())
		if _, err := e.prompt(t, id, edit); err != nil {
			t.Fatal(err)
		}
		var last *acpsdk.SessionToolCallUpdate
		for _, u := range e.client.seen()[from:] {
			if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status != acpsdk.ToolCallStatusInProgress {
				last = u.ToolCallUpdate
			}
		}
		if last == nil || *last.Status != tc.status {
			t.Fatalf("%s: final tool_call_update %+v, want %s", tc.mode, last, tc.status)
		}
		if tc.mode == "plan" {
			b, _ := json.Marshal(last.Content)
			if !strings.Contains(string(b), "plan mode: apply_edit is refused") {
				t.Errorf("plan refusal: %s", b)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != tc.file {
			t.Errorf("%s: a.txt %q, want %q", tc.mode, b, tc.file)
		}
	}
	// Setting the mode it has already sends nothing.
	if _, err := e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: id, ModeId: "normal"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(modes(), ","); got != "plan,normal" {
		t.Errorf("current_mode_update: %s", got)
	}
	_, err = e.conn.SetSessionMode(ctxT(t), acpsdk.SetSessionModeRequest{SessionId: "nope", ModeId: "plan"})
	if code, msg := rpcCode(err); code != -32602 || msg != "session/set_mode: unknown session nope" {
		t.Errorf("unknown session: %d %q", code, msg)
	}
}

// TestServeUsageUpdateAfterTurn: after a turn whose provider reported
// usage, usage_update says the tokens in context (the last round's
// prompt and completion) of the model's window; a model whose window is
// unknown gets none. Only a client that asked for it
// (_meta["rx-bridge"].usageUpdate) gets it: older ACP clients reject the
// unstable update (issue 29 item 5).
func TestServeUsageUpdateAfterTurn(t *testing.T) {
	t.Parallel()
	srv := newModelServer(t)
	e := serveOn(t, t.TempDir(), t.TempDir(), modelConfig(srv, "yolo"), "local/think", nil)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.prompt(t, sess.SessionId, "call list_files {}")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range e.client.seen() {
		if u.UsageUpdate != nil {
			t.Fatalf("usage_update sent to a client that did not ask for it: %+v", *u.UsageUpdate)
		}
	}
	if res.Usage == nil || res.Usage.TotalTokens == 0 {
		t.Errorf("the prompt result carries no usage: %+v", res.Usage)
	}
	if _, err := e.conn.Initialize(ctxT(t), acpsdk.InitializeRequest{ProtocolVersion: ProtocolVersion, ClientCapabilities: acpsdk.ClientCapabilities{
		Meta: map[string]any{"rx-bridge": map[string]any{"usageUpdate": true}},
	}}); err != nil {
		t.Fatal(err)
	}
	usages := func() []acpsdk.SessionUsageUpdate {
		var out []acpsdk.SessionUsageUpdate
		for _, u := range e.client.seen() {
			if u.UsageUpdate != nil {
				out = append(out, *u.UsageUpdate)
			}
		}
		return out
	}
	if _, err := e.prompt(t, sess.SessionId, "call list_files {}"); err != nil {
		t.Fatal(err)
	}
	if got := usages(); len(got) != 1 || got[0].Used != 120 || got[0].Size != 32768 {
		t.Errorf("usage_update after a turn of two rounds: %+v", got)
	}
	if _, err := e.set(t, sess.SessionId, "model", "local/deep"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.prompt(t, sess.SessionId, "hi"); err != nil {
		t.Fatal(err)
	}
	if got := usages(); len(got) != 1 {
		t.Errorf("usage_update for a model without a known window: %+v", got)
	}
}

// TestServeDeleteKeepsOtherSessions: deleting one session
// leaves another open one working (a guard against deleting by prefix).
func TestServeDeleteKeepsOtherSessions(t *testing.T) {
	t.Parallel()
	e := serveOn(t, t.TempDir(), t.TempDir(), "", "plugin/echo-provider/echo/small", nil)
	var ids []acpsdk.SessionId
	for range 2 {
		s, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, s.SessionId)
	}
	e.delete(t, ids[0])
	if r, err := e.prompt(t, ids[1], "still here"); err != nil || r.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("the other session: %+v %v", r, err)
	}
	if l := e.listed(t); contains(l, ids[0]) || !contains(l, ids[1]) {
		t.Errorf("listed %v", l)
	}
}

// TestFreshHomeSessionAndSetup (issue 29 item 8): in a home that
// configures no model, initialize advertises the terminal auth method
// running `rx-bridge setup`; session/new succeeds with the model option
// saying no model is configured; the first prompt answers ACP's
// "authentication required" (-32000) naming the fix; once config.toml
// names a model, authenticate reads it and the same session answers.
func TestFreshHomeSessionAndSetup(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	e := serveOn(t, home, t.TempDir(), "", "", nil)
	init, err := e.conn.Initialize(ctxT(t), acpsdk.InitializeRequest{ProtocolVersion: ProtocolVersion})
	if err != nil {
		t.Fatal(err)
	}
	if len(init.AuthMethods) != 1 || init.AuthMethods[0].Terminal == nil ||
		init.AuthMethods[0].Terminal.Id != authSetup || !slices.Equal(init.AuthMethods[0].Terminal.Args, []string{"setup"}) {
		t.Fatalf("authMethods = %+v, want the terminal method running setup", init.AuthMethods)
	}
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new in a home without a model: %v", err)
	}
	var modelOpt *acpsdk.SessionConfigOptionSelect
	for _, o := range sess.ConfigOptions {
		if o.Select != nil && o.Select.Id == optModel {
			modelOpt = o.Select
		}
	}
	if modelOpt == nil || modelOpt.CurrentValue != "" || modelOpt.Options.Ungrouped == nil || (*modelOpt.Options.Ungrouped)[0].Name != noModelName {
		t.Fatalf("model option of a session without a model: %+v", modelOpt)
	}
	res := e.raw(t, "session/prompt", map[string]any{"sessionId": sess.SessionId, "prompt": []map[string]any{{"type": "text", "text": "hi"}}})
	var rpcErr struct {
		Code    int
		Message string
	}
	if json.Unmarshal(res["error"], &rpcErr) != nil || rpcErr.Code != codeAuthRequired || !strings.Contains(rpcErr.Message, "rx-bridge setup") {
		t.Fatalf("first prompt without a model answered %s %s, want -32000 naming rx-bridge setup", res["result"], res["error"])
	}
	// What setup leaves behind: a default model in config.toml.
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"plugin/echo-provider/echo/small\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := e.conn.Authenticate(ctxT(t), acpsdk.AuthenticateRequest{MethodId: authSetup}); err != nil {
		t.Fatalf("authenticate after setup: %v", err)
	}
	if _, err := e.prompt(t, sess.SessionId, "hello after setup"); err != nil {
		t.Fatalf("prompt after setup: %v", err)
	}
	if _, err := e.conn.Authenticate(ctxT(t), acpsdk.AuthenticateRequest{MethodId: "nope"}); err == nil {
		t.Error("authenticate with an unknown method id succeeded")
	}
}
