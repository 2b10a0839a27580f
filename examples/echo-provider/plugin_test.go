package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const smallRef = "plugin/echo-provider/echo/small"

var readFile = extproto.ProviderToolSchema{Name: "read_file", Parameters: json.RawMessage(`{"type":"object"}`)}

func start(t *testing.T) *sdktest.Host {
	return sdktest.Start(t, newPlugin(0, ""), sdktest.Options{Serve: sdk.Options{PluginID: "echo-provider"}})
}

// run streams req and returns the chunk types, the text, the tool call
// and the usage.
func run(t *testing.T, h *sdktest.Host, req extproto.ProviderRequest) (types []extproto.ProviderChunkType, text string, call *extproto.ProviderToolCall, usage *extproto.ProviderUsage) {
	t.Helper()
	st, err := h.OpenStream(smallRef, req)
	if err != nil {
		t.Fatal(err)
	}
	chunks, end, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if end.Error != "" || end.Interrupted || end.LastSeq != int64(len(chunks)) {
		t.Fatalf("end %+v after %d chunks", end, len(chunks))
	}
	args := ""
	for _, c := range chunks {
		types = append(types, c.Chunk.Type)
		switch c.Chunk.Type {
		case extproto.ChunkText:
			text += c.Chunk.Text
		case extproto.ChunkToolCallArgsDelta:
			args += c.Chunk.Text
			if c.Chunk.ArgChars != len(args) {
				t.Errorf("argChars %d after %d characters", c.Chunk.ArgChars, len(args))
			}
		case extproto.ChunkToolCall:
			call = c.Chunk.ToolCall
			if call.Arguments != args {
				t.Errorf("streamed arguments %q, call has %q", args, call.Arguments)
			}
		case extproto.ChunkUsage:
			usage = c.Chunk.Usage
		}
	}
	return types, text, call, usage
}

func user(text string) extproto.ProviderMessage {
	return extproto.ProviderMessage{Role: extproto.RoleUser, Content: text}
}

func TestCatalog(t *testing.T) {
	t.Parallel()
	got, err := start(t).Catalog()
	want := []extproto.ProviderDescriptor{
		{Ref: "plugin/echo-provider/echo/small", DisplayName: "Echo (small)", Model: "small", ContextWindow: 8192, Tools: true},
		{Ref: "plugin/echo-provider/echo/large", DisplayName: "Echo (large)", Model: "large", ContextWindow: 131072, Tools: true},
	}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog %+v, %v", got, err)
	}
}

func TestEcho(t *testing.T) {
	t.Parallel()
	h := start(t)
	types, text, call, usage := run(t, h, extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user("earlier turn"), user("  hello   streaming world ")}})
	want := []extproto.ProviderChunkType{extproto.ChunkText, extproto.ChunkText, extproto.ChunkText, extproto.ChunkUsage, extproto.ChunkDone}
	if !reflect.DeepEqual(types, want) || text != "hello streaming world" || call != nil {
		t.Errorf("chunks %v, text %q, call %+v", types, text, call)
	}
	if *usage != (extproto.ProviderUsage{PromptTokens: 5, CompletionTokens: 3, TotalTokens: 8, CacheMissTokens: 5, FinishReason: "stop"}) {
		t.Errorf("usage %+v", *usage)
	}
}

// TestRecap: "recap" names the model and quotes the conversation's first
// user message, so a client shows that a session kept both.
func TestRecap(t *testing.T) {
	t.Parallel()
	h := start(t)
	for _, tc := range []struct {
		ref  string
		msgs []extproto.ProviderMessage
		want string
	}{
		{smallRef, []extproto.ProviderMessage{user("recap")}, "plugin/echo-provider/echo/small here; no earlier user message."},
		{"plugin/echo-provider/echo/large", []extproto.ProviderMessage{user("first words"), {Role: extproto.RoleAssistant, Content: "first words"}, user(" Recap ")},
			`plugin/echo-provider/echo/large here; 1 earlier user message: "first words"`},
		{smallRef, []extproto.ProviderMessage{{Role: extproto.RoleSystem, Content: "be brief"}, user("one"), user("two"), user("recap")},
			`plugin/echo-provider/echo/small here; 2 earlier user messages, the first: "one"`},
	} {
		st, err := h.OpenStream(tc.ref, extproto.ProviderRequest{Messages: tc.msgs})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Wait(); err != nil || st.Text() != tc.want {
			t.Errorf("%s %+v: %q, %v; want %q", tc.ref, tc.msgs, st.Text(), err, tc.want)
		}
	}
}

func TestToolCall(t *testing.T) {
	t.Parallel()
	h := start(t)
	req := extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user(`call read_file {"path": "README.md", "lines": 20}`)}, Tools: []extproto.ProviderToolSchema{readFile}}
	types, text, call, usage := run(t, h, req)
	if types[0] != extproto.ChunkToolCallStart || types[len(types)-3] != extproto.ChunkToolCall || text != "" {
		t.Errorf("chunks %v, text %q", types, text)
	}
	if want := (extproto.ProviderToolCall{ID: "call_1", Name: "read_file", Arguments: `{"lines":20,"path":"README.md"}`}); call == nil || *call != want {
		t.Errorf("call %+v, want %+v", call, want)
	}
	if usage.FinishReason != "tool_calls" {
		t.Errorf("usage %+v", usage)
	}

	// The host runs the tool and sends its result back.
	req.Messages = append(req.Messages,
		extproto.ProviderMessage{Role: extproto.RoleAssistant, ToolCalls: []extproto.ProviderToolCall{*call}},
		extproto.ProviderMessage{Role: extproto.RoleTool, ToolCallID: call.ID, Content: "# rx-bridge\n\nAn LSP bridge."})
	_, text, call, _ = run(t, h, req)
	if text != `The tool returned: "# rx-bridge An LSP bridge."` || call != nil {
		t.Errorf("reply to the result: %q, call %+v", text, call)
	}
}

// A message of several call lines makes the calls one per round, then
// quotes the last result.
func TestToolCalls(t *testing.T) {
	t.Parallel()
	h := start(t)
	req := extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user("call read_file {\"path\": \"a\"}\n\ncall read_file {\"path\": \"b\"}\n")}, Tools: []extproto.ProviderToolSchema{readFile}}
	var paths []string
	for range 3 {
		_, text, call, _ := run(t, h, req)
		if call == nil {
			if text != `The tool returned: "result 2"` {
				t.Errorf("after the calls: %q", text)
			}
			break
		}
		paths = append(paths, call.Arguments)
		req.Messages = append(req.Messages,
			extproto.ProviderMessage{Role: extproto.RoleAssistant, ToolCalls: []extproto.ProviderToolCall{*call}},
			extproto.ProviderMessage{Role: extproto.RoleTool, ToolCallID: call.ID, Content: fmt.Sprintf("result %d", len(paths))})
	}
	if strings.Join(paths, " ") != `{"path":"a"} {"path":"b"}` {
		t.Errorf("calls %v", paths)
	}
}

func TestToolCallRefused(t *testing.T) {
	t.Parallel()
	h := start(t)
	for msg, want := range map[string]string{
		`call read_file ["README.md"]`: `Cannot call read_file: the arguments must be a JSON object, like {"path": "README.md"}.`,
		`call rm_rf {}`:                `Cannot call rm_rf: this request offers no tool of that name.`,
	} {
		_, text, call, _ := run(t, h, extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user(msg)}, Tools: []extproto.ProviderToolSchema{readFile}})
		if text != want || call != nil {
			t.Errorf("%s: %q, call %+v", msg, text, call)
		}
	}
	// Without arguments the call gets {}.
	_, _, call, _ := run(t, h, extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user("call read_file")}, Tools: []extproto.ProviderToolSchema{readFile}})
	if call == nil || call.Arguments != "{}" {
		t.Errorf("call without arguments: %+v", call)
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, newPlugin(time.Hour, ""), sdktest.Options{}) // one word, then a long pause
	st, err := h.OpenStream("plugin/echo-provider/echo/large", extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user("one two three")}})
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(sdktest.Deadline); len(st.Chunks()) == 0 && time.Now().Before(end); {
		time.Sleep(time.Millisecond)
	}
	if res, err := st.Cancel(); err != nil || !res.Cancelled {
		t.Fatalf("cancel: %+v, %v", res, err)
	}
	chunks, end, err := st.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || chunks[0].Chunk.Text != "one " || end != (extproto.StreamEndParams{StreamID: st.ID, LastSeq: 1, Interrupted: true}) {
		t.Errorf("chunks %+v, end %+v", chunks, end)
	}
}

func TestManifest(t *testing.T) {
	t.Parallel()
	m, err := manifest.Load(".")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "echo-provider" || m.Runtime == nil || !reflect.DeepEqual(m.Runtime.Capabilities, []extproto.Capability{extproto.CapProviders}) {
		t.Errorf("manifest %+v runtime %+v", m, m.Runtime)
	}
	if !strings.HasPrefix(m.Runtime.Command, "${REASONIX_PLUGIN_ROOT}/") {
		t.Errorf("runtime.command %q", m.Runtime.Command)
	}
}

// TestBinary builds the sidecar and streams from it over its real stdin
// and stdout, installed under another name to show the refs follow it.
func TestBinary(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(sdktest.Build(t, "."))
	cmd.Env = append(os.Environ(), "REASONIX_PLUGIN_ROOT="+t.TempDir(), "REASONIX_PLUGIN_NAME=echo2", "REASONIX_PLUGIN_VERSION=0.1.0", "ECHO_PROVIDER_DELAY=0")
	h, stderr := sdktest.StartCmd(t, cmd, sdktest.Options{NoHandshake: true, Manifest: extproto.ManifestExpectation{Capabilities: []string{"providers"}}})
	res, err := h.Initialize()
	if err != nil {
		t.Fatalf("initialize: %v; stderr: %s", err, stderr)
	}
	if len(res.Providers) != 2 || res.Providers[0].Ref != "plugin/echo2/echo/small" || res.Providers[1].Ref != "plugin/echo2/echo/large" {
		t.Errorf("providers %+v", res.Providers)
	}
	h.Initialized()
	st, err := h.OpenStream("plugin/echo2/echo/small", extproto.ProviderRequest{Messages: []extproto.ProviderMessage{user("over real pipes")}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Wait(); err != nil || st.Text() != "over real pipes" {
		t.Errorf("stream %q, %v", st.Text(), err)
	}
	if r, err := h.Shutdown(time.Second); err != nil || !r.Accepted {
		t.Fatalf("shutdown: %+v, %v; stderr: %s", r, err, stderr)
	}
}
