package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// TestTerminalPluginUI puts plugin prompts through the editorui hub to
// the terminal, answered by input lines.
func TestTerminalPluginUI(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		kind    extproto.UIRequestKind
		payload string
		input   string
		want    string // JSON of the values, or "cancelled"
		shown   string
	}{
		{"select by number", extproto.RequestSelect, `{"title":"Colour","fields":[{"key":"c","kind":"select","label":"Pick one","options":["red","green"]}]}`, "2\n", `{"c":"green"}`, "2) green"},
		{"select by name", extproto.RequestSelect, `{"fields":[{"key":"c","kind":"select","label":"Pick","options":["red","green"]}]}`, "red\n", `{"c":"red"}`, "1) red"},
		{"invented option", extproto.RequestSelect, `{"fields":[{"key":"c","kind":"select","label":"Pick","options":["red"],"required":true}]}`, "blue\n", "cancelled", "Pick"},
		{"multiselect", extproto.RequestMultiselect, `{"fields":[{"key":"m","kind":"multiselect","label":"Some","options":["a","b","c"]}]}`, "1, 3\n", `{"m":["a","c"]}`, "3) c"},
		{"input without fields", extproto.RequestInput, `{"message":"Your name? token=ghp_abcdefghijklmnopqrstuvwxyz0123456789","fields":[]}`, "Ada\n", `{"value":"Ada"}`, "Your name? token="},
		{"confirm", extproto.RequestConfirm, `{"message":"Proceed?","fields":[]}`, "yes\n", `{"value":true}`, "[y/N]"},
		{"form field by field", extproto.RequestInput, `{"fields":[{"key":"a","kind":"input","label":"First"},{"key":"b","kind":"confirm","label":"Second"}]}`, "one\nn\n", `{"a":"one","b":false}`, "Second"},
		{"end of input", extproto.RequestInput, `{"message":"Anything?","fields":[]}`, "", "cancelled", "Anything?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := &syncWriter{w: &bytes.Buffer{}}
			term := newTerminal(strings.NewReader(tc.input), out, "", false)
			hub, err := editorui.NewHub(editorui.Options{Editor: term, Redact: redact.String, SessionID: chatSessionID})
			if err != nil {
				t.Fatal(err)
			}
			defer hub.Close()
			ctx, cancel := context.WithTimeout(context.Background(), scaled(10*time.Second))
			defer cancel()
			res, err := hub.Request(ctx, "asker", &extproto.UIRequestParams{Kind: tc.kind, Payload: json.RawMessage(tc.payload), SessionID: chatSessionID, SurfaceID: "q"})
			if err != nil {
				t.Fatal(err)
			}
			got := "cancelled"
			if !res.Cancelled {
				b, _ := json.Marshal(res.Values)
				got = string(b)
			}
			if got != tc.want {
				t.Errorf("answer %s, want %s", got, tc.want)
			}
			shown := out.String()
			if !strings.Contains(shown, tc.shown) || !strings.Contains(shown, "[asker asks]") || strings.Contains(shown, "ghp_") {
				t.Errorf("shown:\n%s", shown)
			}
		})
	}
}

func TestTerminalSurfacesAndPermission(t *testing.T) {
	t.Parallel()
	out := &syncWriter{w: &bytes.Buffer{}}
	term := newTerminal(strings.NewReader("nope\n"), out, "", false)
	hub, err := editorui.NewHub(editorui.Options{Editor: term, Redact: redact.String, SessionID: chatSessionID})
	if err != nil {
		t.Fatal(err)
	}
	defer hub.Close()
	ctx := context.Background()
	res, err := hub.Publish(ctx, "p", &extproto.UIPublishParams{Kind: extproto.SurfaceNotification, Payload: json.RawMessage(`{"title":"Indexed","body":"42 files","severity":"warn"}`), SessionID: chatSessionID, SurfaceID: "n"})
	if err != nil || !res.Accepted {
		t.Fatalf("publish: %+v, %v", res, err)
	}
	outcome, err := term.RequestPermission(ctx, agent.PermissionRequest{ToolCall: agent.ToolCall{Name: "run_command", Title: "Run make", Arguments: `{"command":["make"]}`}})
	if err != nil || outcome != agent.PermissionDeny {
		t.Errorf("an answer other than y: %s, %v", outcome, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if outcome, _ := term.RequestPermission(cancelled, agent.PermissionRequest{}); outcome != agent.PermissionCancelled {
		t.Errorf("a cancelled turn's question: %s", outcome)
	}
	shown := out.String()
	for _, want := range []string{"[p warn] Indexed: 42 files", `Allow Run make? run_command {"command":["make"]} [y/N]`} {
		if !strings.Contains(shown, want) {
			t.Errorf("shown lacks %q:\n%s", want, shown)
		}
	}
}

// TestTerminalSessionGrant: "a" answers allow-for-this-session only when
// the engine offers a grant, and the question shows the grant's label.
func TestTerminalSessionGrant(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, grant, line string
		want              agent.PermissionOutcome
	}{
		{"a with a grant", "Allow run_command make for this session", "a\n", agent.PermissionAllowSession},
		{"always with a grant", "Allow run_command make for this session", "Always\n", agent.PermissionAllowSession},
		{"a without a grant denies", "", "a\n", agent.PermissionDeny},
		{"y with a grant allows once", "Allow run_command make for this session", "y\n", agent.PermissionAllow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := &syncWriter{w: &bytes.Buffer{}}
			term := newTerminal(strings.NewReader(tc.line), out, "", false)
			got, err := term.RequestPermission(context.Background(), agent.PermissionRequest{ToolCall: agent.ToolCall{Name: "run_command", Title: "Run make", Arguments: `{"command":["make"]}`}, Grant: tc.grant})
			if err != nil || got != tc.want {
				t.Errorf("answer %q: %s, %v; want %s", tc.line, got, err, tc.want)
			}
			if tc.grant != "" && !strings.Contains(out.String(), "a = "+tc.grant) {
				t.Errorf("question does not name the grant:\n%s", out.String())
			}
		})
	}
}

// syncWriter lets the hub's goroutines and the test share a buffer.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}
