package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/BurntSushi/toml"
)

// setupKeyValue is the key the fake server accepts; no output may hold it.
const setupKeyValue = "sk-setup-Zq81Lm0vXw7sP2mN8rB4"

// fakeModelServer is an OpenAI-compatible server on 127.0.0.1: GET
// /v1/models (behind the key when key is set) and a streamed
// /v1/chat/completions.
type fakeModelServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string // the Authorization header of each request
}

func newFakeModelServer(t *testing.T, key, models string) *fakeModelServer {
	t.Helper()
	fs := &fakeModelServer{}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.auth = append(fs.auth, r.Header.Get("Authorization"))
		fs.mu.Unlock()
		if key != "" && r.Header.Get("Authorization") != "Bearer "+key {
			// Like some servers, it echoes what it was sent.
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s"}}`, r.Header.Get("Authorization"))
			return
		}
		switch r.URL.Path {
		case "/v1/models":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, models)
		case "/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello from the fake\"}}]}\n\n"+
				"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fakeModelServer) lastAuth() string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.auth) == 0 {
		return ""
	}
	return fs.auth[len(fs.auth)-1]
}

// threeModels: context windows under three names, and one without.
const threeModels = `{"object":"list","data":[
 {"id":"coder-7b","object":"model","context_length":32768},
 {"id":"Org/Big-Model","object":"model","max_model_len":131072},
 {"id":"tiny","object":"model"},
 {"id":"llama","object":"model","meta":{"n_ctx_train":8192}}]}`

// runBridge runs the real program in home with stdin, and returns its
// exit status and output.
func runBridge(t *testing.T, home, stdin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := rxBridgeCommand(args...)
	cmd.Env = append(append(cmd.Env, "RX_BRIDGE_HOME="+home), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(interface{ ExitCode() int })
		if !ok {
			t.Fatalf("rx-bridge %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return code, stdout.String(), stderr.String()
}

func noKeyIn(t *testing.T, what ...string) {
	t.Helper()
	for _, s := range what {
		if strings.Contains(s, setupKeyValue) || strings.Contains(s, setupKeyValue[3:15]) {
			t.Fatalf("the key leaked: %q", s)
		}
	}
}

func readConfig(t *testing.T, home string) (string, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if _, err := toml.Decode(string(b), &m); err != nil {
		t.Fatalf("config.toml does not parse: %v\n%s", err, b)
	}
	return string(b), m
}

// TestSetupFlagsKeyStdin: the non-interactive form in an empty home
// stores the key in keys/<name>.key (0600), writes the provider and the
// default model, prints no key; models then lists the model, and complete
// reaches the server with the key from the file.
func TestSetupFlagsKeyStdin(t *testing.T) {
	fs := newFakeModelServer(t, setupKeyValue, threeModels)
	home := filepath.Join(t.TempDir(), "home") // does not exist yet
	code, stdout, stderr := runBridge(t, home, setupKeyValue+"\n", nil,
		"setup", "--provider", "openai-compatible", "--base-url", fs.URL+"/v1", "--api-key-stdin", "--model", "Org/Big-Model", "--name", "fake")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	noKeyIn(t, stdout, stderr)
	for _, want := range []string{`Configured provider "fake"`, "Default model: fake/Big-Model", filepath.Join(home, "keys", "fake.key")} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("stdout %q lacks %q", stdout, want)
		}
	}
	text, cfg := readConfig(t, home)
	noKeyIn(t, text)
	if cfg["model"] != "fake/Big-Model" {
		t.Fatalf("model = %v\n%s", cfg["model"], text)
	}
	p := cfg["providers"].(map[string]any)["openai"].([]map[string]any)
	if len(p) != 1 || p[0]["name"] != "fake" || p[0]["base_url"] != fs.URL+"/v1" || p[0]["api_key_file"] != "keys/fake.key" || p[0]["api_key_env"] != nil {
		t.Fatalf("provider = %v", p)
	}
	m := p[0]["models"].([]map[string]any)
	if len(m) != 1 || m[0]["id"] != "Org/Big-Model" || m[0]["ref_name"] != "Big-Model" || m[0]["context_window"] != int64(131072) || m[0]["tools"] != true {
		t.Fatalf("models = %v", m)
	}
	keyFile := filepath.Join(home, "keys", "fake.key")
	b, err := os.ReadFile(keyFile)
	if err != nil || strings.TrimSpace(string(b)) != setupKeyValue {
		t.Fatalf("key file: %q, %v", b, err)
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(keyFile)
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
		}
	}

	code, stdout, stderr = runBridge(t, home, "", nil, "models")
	if code != 0 || !strings.Contains(stdout, "fake/Big-Model") || !strings.Contains(stdout, "131072") {
		t.Fatalf("models: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runBridge(t, home, "", nil, "complete", "--model", "fake/Big-Model", "hi")
	if code != 0 || !strings.Contains(stdout, "hello from the fake") {
		t.Fatalf("complete: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if got := fs.lastAuth(); got != "Bearer "+setupKeyValue {
		t.Fatalf("complete sent Authorization %q", got)
	}
	noKeyIn(t, stdout, stderr)
}

// TestSetupFlagsKeyEnvAndJSON: --api-key-env writes the variable's name
// only; --json says what was done; --list-models changes nothing.
func TestSetupFlagsKeyEnvAndJSON(t *testing.T) {
	fs := newFakeModelServer(t, setupKeyValue, threeModels)
	home := t.TempDir()
	env := []string{"RX_SETUP_TEST_KEY=" + setupKeyValue}

	code, stdout, stderr := runBridge(t, home, "", env, "setup", "--base-url", fs.URL+"/v1", "--api-key-env", "RX_SETUP_TEST_KEY", "--list-models", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	noKeyIn(t, stdout, stderr)
	var res setupResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	want := []setupModelJSON{
		{ID: "Org/Big-Model", Ref: "local/Big-Model", ContextWindow: 131072},
		{ID: "coder-7b", Ref: "local/coder-7b", ContextWindow: 32768},
		{ID: "llama", Ref: "local/llama", ContextWindow: 8192},
		{ID: "tiny", Ref: "local/tiny"},
	}
	if res.Provider != "local" || res.Model != "" || res.Config != "" || fmt.Sprint(res.Models) != fmt.Sprint(want) {
		t.Fatalf("list-models result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(home, "config.toml")); !os.IsNotExist(err) {
		t.Fatalf("--list-models wrote config.toml (%v)", err)
	}

	code, stdout, stderr = runBridge(t, home, "", env, "setup", "--base-url", fs.URL+"/v1", "--api-key-env", "RX_SETUP_TEST_KEY", "--model", "coder-7b", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	noKeyIn(t, stdout, stderr)
	res = setupResult{}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if res.Model != "local/coder-7b" || res.KeyEnv != "RX_SETUP_TEST_KEY" || res.KeyFile != "" || res.Config != filepath.Join(home, "config.toml") || len(res.Models) != 4 {
		t.Fatalf("result = %+v", res)
	}
	text, cfg := readConfig(t, home)
	p := cfg["providers"].(map[string]any)["openai"].([]map[string]any)
	if cfg["model"] != "local/coder-7b" || p[0]["api_key_env"] != "RX_SETUP_TEST_KEY" || p[0]["api_key_file"] != nil {
		t.Fatalf("config.toml:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(home, "keys")); !os.IsNotExist(err) {
		t.Fatalf("a key file was written for an env key (%v)", err)
	}
}

// TestSetupErrors: each failure is one line naming what went wrong, never
// the key, and changes nothing.
func TestSetupErrors(t *testing.T) {
	locked := newFakeModelServer(t, setupKeyValue, threeModels)
	open := newFakeModelServer(t, "", threeModels)
	empty := newFakeModelServer(t, "", `{"object":"list","data":[]}`)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	wrongKey := "sk-wrong-Hn5Tq2Vx8Lp3Rz9W"
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"unreachable", "", []string{"--base-url", closed}, 1, "cannot reach " + closed + "/models"},
		{"key refused", wrongKey, []string{"--base-url", locked.URL + "/v1", "--api-key-stdin"}, 1, "refused the API key (HTTP 401)"},
		{"no key", "", []string{"--base-url", locked.URL + "/v1"}, 1, "wants an API key (HTTP 401)"},
		{"no models", "", []string{"--base-url", empty.URL + "/v1"}, 1, "lists no models"},
		{"several models", "", []string{"--base-url", open.URL + "/v1"}, 1, "lists 4 models; choose the default with --model (Org/Big-Model, coder-7b, llama, tiny)"},
		{"unknown model", "", []string{"--base-url", open.URL + "/v1", "--model", "nope"}, 1, `does not list model "nope"`},
		{"bad name", "", []string{"--base-url", open.URL + "/v1", "--model", "tiny", "--name", "a/b"}, 1, "name must match"},
		{"key file missing", "", []string{"--base-url", open.URL + "/v1", "--api-key-file", filepath.Join(t.TempDir(), "none.key")}, 1, "cannot be read"},
		{"two key sources", "", []string{"--base-url", open.URL + "/v1", "--api-key-env", "X", "--api-key-stdin"}, 2, "exclude each other"},
		{"key as env name", "", []string{"--base-url", open.URL + "/v1", "--api-key-env", "sk-abc"}, 2, "NAME of an environment variable"},
		{"custom needs url", "", []string{"--provider", "openai-compatible"}, 2, "needs --base-url"},
		{"unknown provider", "", []string{"--provider", "acme"}, 2, `unknown --provider "acme"`},
		{"not a terminal", "", nil, 1, "stdin is not a terminal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			code, stdout, stderr := runBridge(t, home, tt.stdin, nil, append([]string{"setup"}, tt.args...)...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d (want %d)\nstderr %q\nwant %q", code, tt.code, stderr, tt.want)
			}
			if tt.code == 1 && strings.Count(stderr, "\n") != 1 {
				t.Fatalf("stderr is not one line: %q", stderr)
			}
			noKeyIn(t, stdout, stderr)
			if strings.Contains(stdout+stderr, wrongKey) {
				t.Fatalf("the typed key leaked: %q", stdout+stderr)
			}
			if entries, _ := os.ReadDir(home); len(entries) != 0 {
				t.Fatalf("a failed setup left %v in the home", entries)
			}
		})
	}
}

// existingConfig has settings, comments and a provider of its own that
// setup must keep.
const existingConfig = `# my settings
tool_approval = "auto"   # trust me
model = "mine/old"
step_budget = 40

[timeouts]
tool = "3m"

[ui]
show_thoughts = true

[[providers.openai]]
name = "mine"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "MINE_KEY"
[[providers.openai.models]]
id = "old"
[providers.openai.headers]
X-Title = "me"

[mcp_servers.docs]
type = "http"
url = "https://example.com/mcp"
`

// TestSetupKeepsOtherSettings: setup changes model and adds its table,
// and every other line stays, comments included; the same name again
// needs --replace, which swaps only that table.
func TestSetupKeepsOtherSettings(t *testing.T) {
	fs := newFakeModelServer(t, "", threeModels)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(existingConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runBridge(t, home, "", nil, "setup", "--base-url", fs.URL+"/v1", "--model", "tiny", "--name", "fake")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	text, cfg := readConfig(t, home)
	for _, line := range strings.Split(strings.TrimSpace(existingConfig), "\n") {
		if line != `model = "mine/old"` && !strings.Contains(text, line+"\n") {
			t.Fatalf("line %q is gone:\n%s", line, text)
		}
	}
	if cfg["model"] != "fake/tiny" || strings.Contains(text, "mine/old") || cfg["step_budget"] != int64(40) || cfg["tool_approval"] != "auto" {
		t.Fatalf("config.toml:\n%s", text)
	}
	if st, _ := os.Stat(filepath.Join(home, "config.toml")); runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Fatalf("config.toml mode changed to %v", st.Mode().Perm())
	}
	code, stdout, stderr = runBridge(t, home, "", nil, "models")
	if code != 0 || !strings.Contains(stdout, "fake/tiny") || !strings.Contains(stdout, "mine/old") {
		t.Fatalf("models: exit %d\n%s%s", code, stdout, stderr)
	}

	code, _, stderr = runBridge(t, home, "", nil, "setup", "--base-url", fs.URL+"/v1", "--model", "coder-7b", "--name", "fake")
	if code != 1 || !strings.Contains(stderr, `already has a [[providers.openai]] named "fake"; pass --replace`) {
		t.Fatalf("same name: exit %d, %s", code, stderr)
	}
	if again, _ := readConfig(t, home); again != text {
		t.Fatalf("a refused setup changed config.toml:\n%s", again)
	}
	code, stdout, stderr = runBridge(t, home, "", nil, "setup", "--base-url", fs.URL+"/v1", "--model", "coder-7b", "--name", "fake", "--replace")
	if code != 0 {
		t.Fatalf("--replace: exit %d: %s%s", code, stdout, stderr)
	}
	text, cfg = readConfig(t, home)
	p := cfg["providers"].(map[string]any)["openai"].([]map[string]any)
	if cfg["model"] != "fake/coder-7b" || len(p) != 2 || p[0]["name"] != "mine" || p[1]["name"] != "fake" || strings.Contains(text, `"tiny"`) {
		t.Fatalf("after --replace:\n%s", text)
	}
	if h := p[0]["headers"].(map[string]any); h["X-Title"] != "me" {
		t.Fatalf("the other provider's headers changed:\n%s", text)
	}
}

// TestSetupInteractive drives the questions through a pipe: the URL
// typed at the provider question, a key, then the model by number.
func TestSetupInteractive(t *testing.T) {
	fs := newFakeModelServer(t, setupKeyValue, threeModels)
	home := t.TempDir()
	answers := fs.URL + "/v1\n" + setupKeyValue + "\n9\n2\n"
	code, stdout, stderr := runBridge(t, home, answers, nil, "setup", "--interactive")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	noKeyIn(t, stdout, stderr)
	for _, want := range []string{
		"1)  DeepSeek", "https://api.deepseek.com/v1", "OpenAI", "OpenRouter", "another OpenAI-compatible server",
		"API key (stored in " + filepath.Join(home, "keys", "local.key"), "(typing is shown)",
		"Models:", "2)  coder-7b       context 32768", "Type a number from the list or a model id.",
		"Default model: local/coder-7b",
	} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	_, cfg := readConfig(t, home)
	if cfg["model"] != "local/coder-7b" {
		t.Fatalf("model = %v", cfg["model"])
	}
	code, stdout, _ = runBridge(t, home, "", nil, "models")
	if code != 0 || !strings.Contains(stdout, "local/coder-7b") {
		t.Fatalf("models: %s", stdout)
	}

	// Again: the name is taken; "n" asks for another name, and $NAME
	// reads the key from that variable.
	answers = fs.URL + "/v1\nn\nsecond\n$RX_SETUP_TEST_KEY\ntiny\n"
	code, stdout, stderr = runBridge(t, home, answers, []string{"RX_SETUP_TEST_KEY=" + setupKeyValue}, "setup", "--interactive")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	noKeyIn(t, stdout, stderr)
	text, cfg := readConfig(t, home)
	p := cfg["providers"].(map[string]any)["openai"].([]map[string]any)
	if cfg["model"] != "second/tiny" || len(p) != 2 || p[1]["api_key_env"] != "RX_SETUP_TEST_KEY" {
		t.Fatalf("config.toml:\n%s", text)
	}

	// End of input before an answer changes nothing.
	before, _ := readConfig(t, home)
	code, _, stderr = runBridge(t, home, fs.URL+"/v1\n", nil, "setup", "--interactive")
	if code != 1 || !strings.Contains(stderr, "no answer (end of input); nothing was changed") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if after, _ := readConfig(t, home); after != before {
		t.Fatal("an interrupted setup changed config.toml")
	}
}
