package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/agent"
)

// chatServer is an OpenAI-compatible server that plays a model: a user
// message "read <path>" calls read_file on it, "write <path> <words>"
// calls apply_edit to write the words to it, a tool result is quoted
// back, anything else is echoed word by word.
func chatServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content any    `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		last := req.Messages[len(req.Messages)-1]
		content, _ := last.Content.(string)
		var events []string
		finish := "stop"
		switch {
		case last.Role == "tool":
			first, _, _ := strings.Cut(content, "\n")
			events = append(events, delta(map[string]any{"content": "The file says: " + first}))
		case strings.HasPrefix(content, "read "):
			args, _ := json.Marshal(map[string]string{"path": strings.TrimPrefix(content, "read ")})
			events = append(events, delta(map[string]any{"reasoning_content": "I should read it."}),
				delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function", "function": map[string]any{"name": "read_file", "arguments": string(args)}}}}))
			finish = "tool_calls"
		case strings.HasPrefix(content, "write "):
			path, words, _ := strings.Cut(strings.TrimPrefix(content, "write "), " ")
			args, _ := json.Marshal(map[string]string{"path": path, "content": words + "\n"})
			events = append(events, delta(map[string]any{"reasoning_content": "I should write it."}),
				delta(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function", "function": map[string]any{"name": "apply_edit", "arguments": string(args)}}}}))
			finish = "tool_calls"
		default:
			for i, word := range strings.Fields(content) {
				if i > 0 {
					word = " " + word
				}
				events = append(events, delta(map[string]any{"content": word}))
			}
		}
		events = append(events, `{"choices":[{"index":0,"delta":{},"finish_reason":"`+finish+`"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}`)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range events {
			io.WriteString(w, "data: "+e+"\n\n")
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

func delta(d map[string]any) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": d}}})
	return string(b)
}

// chatEnv is a bridge home pointing at srv and a workspace with a file.
func chatEnv(t *testing.T, srv *httptest.Server, approval string) (getenv func(string) string, ws string) {
	t.Helper()
	home, ws := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`model = "local/echo"
tool_approval = %q

[[providers.openai]]
name = "local"
base_url = "%s/v1"
max_attempts = 1

[[providers.openai.models]]
id = "echo"
context_window = 32768
tools = true
`, approval, srv.URL)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("remember the milk\nand eggs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return func(k string) string {
		if k == "RX_BRIDGE_HOME" {
			return home
		}
		return ""
	}, ws
}

func chatRun(t *testing.T, getenv func(string) string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = runChat(args, strings.NewReader(stdin), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestChatScriptedText(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "ask")
	code, stdout, stderr := chatRun(t, getenv, "y\n", "--workspace", ws, "--prompt", "read notes.txt", "--prompt", "write todo.txt buy bread", "--prompt", "hello there")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"[thinking] I should read it.\n",
		"[tool] Read notes.txt (read_file)\n",
		"[tool] Read notes.txt: completed\n    remember the milk\n    and eggs\n",
		"The file says: remember the milk\n",
		"[turn 1: end_turn]\n",
		"[permission] apply_edit: allow (user)\n",
		"[turn 2: end_turn]\n",
		"hello there\n",
		"[turn 3: end_turn]\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// ask mode asks about the edit only, never about the read.
	if strings.Contains(stdout, "[permission] read_file") || strings.Contains(stderr, "Allow Read notes.txt?") {
		t.Errorf("ask mode asked about a read:\n%s\n%s", stdout, stderr)
	}
	if !strings.Contains(stderr, "Allow Edit todo.txt? apply_edit") || !strings.Contains(stderr, "a = Allow edits to todo.txt for this session") {
		t.Errorf("the edit's permission question (with its session grant) was not asked on stderr: %s", stderr)
	}
	if got := readFile(t, filepath.Join(ws, "todo.txt")); got != "buy bread\n" {
		t.Errorf("todo.txt = %q", got)
	}
}

// TestChatSessionGrant: answering "a" grants exactly what the label
// said — later edits of the same file run unasked, an edit of another
// file is asked again.
func TestChatSessionGrant(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "ask")
	code, stdout, stderr := chatRun(t, getenv, "a\nn\n", "--workspace", ws, "--prompt", "write todo.txt one", "--prompt", "write todo.txt two", "--prompt", "write other.txt three")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if n := strings.Count(stderr, "Allow Edit todo.txt?"); n != 1 {
		t.Errorf("todo.txt asked %d times, want once:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "Allow Edit other.txt?") {
		t.Errorf("another file's edit was not asked:\n%s", stderr)
	}
	if got := readFile(t, filepath.Join(ws, "todo.txt")); got != "two\n" {
		t.Errorf("todo.txt = %q", got)
	}
	if got := readFile(t, filepath.Join(ws, "other.txt")); !strings.HasPrefix(got, "<") {
		t.Errorf("other.txt was written though denied: %q", got)
	}
	if strings.Count(stdout, "[permission] apply_edit: allow (user)") != 2 || strings.Count(stdout, "[permission] apply_edit: deny (user)") != 1 {
		t.Errorf("want two edits allowed (the second by the grant) and one denied:\n%s", stdout)
	}
}

func TestChatJSONAndDeny(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "ask")
	code, stdout, stderr := chatRun(t, getenv, "", "--workspace", ws, "--json", "--no", "--prompt", "write todo.txt x")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var kinds []string
	var id string
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var line struct {
			SessionID string          `json:"sessionId"`
			Update    *agent.Update   `json:"update"`
			Session   json.RawMessage `json:"session"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		id = line.SessionID
		if line.Update != nil {
			kinds = append(kinds, string(line.Update.Kind))
			if tc := line.Update.ToolCall; line.Update.Kind == agent.UpdateToolCallUpdate && tc.Status == agent.ToolFailed && !strings.HasPrefix(tc.Output, "permission denied by user") {
				t.Errorf("denied call output %q", tc.Output)
			}
		}
	}
	want := "user_message_chunk agent_thought_chunk usage tool_call permission_request permission_outcome tool_call_update agent_message_chunk usage turn_end"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("kinds\n got %s\nwant %s", got, want)
	}
	// The session is stored and replays the same updates.
	code, replay, stderr := chatRun(t, getenv, "", "--workspace", ws, "--json", "--session", id)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(replay, `"sessionUpdate"`); n != len(kinds) {
		t.Errorf("replay has %d updates, want %d:\n%s", n, len(kinds), replay)
	}
}

func TestChatInteractive(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "auto")
	stdin := "hello\n/model\n/model local/nope\nread notes.txt\n/exit\nnever sent\n"
	code, stdout, stderr := chatRun(t, getenv, stdin, "--workspace", ws)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "]\nhello\n[usage]") || !strings.Contains(stdout, "[turn 1: end_turn]") || !strings.Contains(stdout, "The file says: remember the milk") || strings.Contains(stdout, "never sent") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stderr, "model: local/echo") || !strings.Contains(stderr, `unknown model ref "local/nope"`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	// auto allows the read-only tool without asking.
	if strings.Contains(stderr, "Allow ") {
		t.Errorf("auto mode asked: %s", stderr)
	}
}

func TestChatFailures(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "ask")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad flag", []string{"--bogus"}, 2, "usage: rx-bridge chat"},
		{"yes and no", []string{"--yes", "--no"}, 2, "usage: rx-bridge chat"},
		{"bad approval", []string{"--approval", "sometimes"}, 2, `unknown approval mode "sometimes"`},
		{"unknown model", []string{"--workspace", ws, "--model", "local/nope", "--prompt", "x"}, 1, `unknown model ref "local/nope"; available: local/echo`},
		{"missing workspace", []string{"--workspace", filepath.Join(ws, "nope"), "--prompt", "x"}, 1, "no such file or directory"},
		{"unknown session", []string{"--workspace", ws, "--session", "nope"}, 1, "no such session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := chatRun(t, getenv, "", tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

func TestChatVerbIsDispatched(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run([]string{"chat", "--bogus"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), "usage: rx-bridge chat") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	out.Reset()
	run([]string{"help"}, &out, &errb)
	if !strings.Contains(out.String(), "chat [--model REF]") {
		t.Errorf("usage does not list chat:\n%s", out.String())
	}
}
