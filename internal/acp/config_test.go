package acp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
)

// current is each config option's current value.
func current(opts []acpsdk.SessionConfigOption) map[string]string {
	out := map[string]string{}
	for _, o := range opts {
		if o.Select != nil {
			out[string(o.Select.Id)] = string(o.Select.CurrentValue)
		}
	}
	return out
}

func TestDisplayName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"xhigh": "XHigh", "low": "Low", "auto": "Auto", "yolo": "Yolo", "": ""} {
		if got := displayName(in); got != want {
			t.Errorf("displayName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestServeSessionConfigToolApproval: session/new reports the current
// tool approval; setting it (by an alias too) answers with the new state,
// sends config_option_update, and the next tool call is not asked about.
func TestServeSessionConfigToolApproval(t *testing.T) {
	t.Parallel()
	e := startACP(t)
	sess, err := e.conn.NewSession(ctxT(t), acpsdk.NewSessionRequest{Cwd: e.ws, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	got := current(sess.ConfigOptions)
	if got["model"] != "plugin/echo-provider/echo/small" || got["tool_approval"] != "ask" {
		t.Errorf("session/new config = %v", got)
	}
	if _, has := got["effort"]; has {
		t.Errorf("effort offered for a model without efforts: %v", got)
	}
	set := func(id, value string) (acpsdk.SetSessionConfigOptionResponse, error) {
		return e.conn.SetSessionConfigOption(ctxT(t), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
			SessionId: sess.SessionId, ConfigId: acpsdk.SessionConfigId(id), Value: acpsdk.SessionConfigValueId(value)}})
	}
	for _, tc := range []struct{ id, value, want string }{
		{"tool_approval", "sometimes", "session/set_config_option: invalid value sometimes for tool_approval"},
		{"effort", "high", "session/set_config_option: invalid value high for effort"},
		{"colour", "red", "session/set_config_option: unknown config option colour"},
	} {
		_, err := set(tc.id, tc.value)
		var re *acpsdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 || len(re.Message) < len(tc.want) || re.Message[:len(tc.want)] != tc.want {
			t.Errorf("set %s=%s: %v, want -32602 %q…", tc.id, tc.value, err, tc.want)
		}
	}
	res, err := set("approval_mode", "yolo")
	if err != nil {
		t.Fatal(err)
	}
	if got := current(res.ConfigOptions)["tool_approval"]; got != "yolo" {
		t.Errorf("after set: tool_approval %q", got)
	}
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.conn.Prompt(context.Background(), acpsdk.PromptRequest{SessionId: sess.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(`call apply_edit {"path":"a.txt","content":"beta"}`)}}); err != nil {
		t.Fatal(err)
	}
	var updated bool
	for _, u := range e.client.seen() {
		if u.ConfigOptionUpdate != nil && current(u.ConfigOptionUpdate.ConfigOptions)["tool_approval"] == "yolo" {
			updated = true
		}
	}
	if !updated {
		t.Error("no config_option_update with tool_approval yolo")
	}
	e.client.mu.Lock()
	asked := e.client.asked
	e.client.mu.Unlock()
	if asked != 0 {
		t.Errorf("yolo still asked %d times", asked)
	}
}
