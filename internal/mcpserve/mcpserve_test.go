package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

func TestToolName(t *testing.T) {
	for _, tt := range []struct{ plugin, action, want string }{
		{"hello", "greet", "hello_greet"},
		{"my plugin", "do:it/now", "my_plugin_do_it_now"},
		{"kit.v2", "run-all", "kit.v2_run-all"},
		{"日本", "x", "___x"},
	} {
		if got := ToolName(extproto.Action{Plugin: tt.plugin, ActionID: tt.action}); got != tt.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tt.plugin, tt.action, got, tt.want)
		}
	}
	long := ToolName(extproto.Action{Plugin: string(make([]byte, 200)), ActionID: "a"})
	if len(long) != maxToolName {
		t.Errorf("a long name is %d bytes", len(long))
	}
}

func TestPromptArgs(t *testing.T) {
	args := func(c plugincontent.Command) string {
		b, _ := json.Marshal(promptArgs(c))
		return string(b)
	}
	for _, tt := range []struct {
		name string
		cmd  plugincontent.Command
		want string
	}{
		{"no placeholder", plugincontent.Command{Body: "Say hi."}, "null"},
		{"claude appends arguments", plugincontent.Command{Body: "Say hi.", Claude: true}, `[{"name":"arguments","description":"the arguments, as typed after the command"}]`},
		{"$ARGUMENTS with a hint", plugincontent.Command{Body: "Do $ARGUMENTS", ArgHint: "<file> [focus]"}, `[{"name":"file","description":"\u003cfile\u003e","required":true},{"name":"focus","description":"[focus]"}]`},
		{"$ARGUMENTS alone", plugincontent.Command{Body: "Do $ARGUMENTS", ArgHint: ""}, `[{"name":"arguments","description":"the arguments, as typed after the command"}]`},
		{"positional beyond the hint", plugincontent.Command{Body: "$1 then $3", ArgHint: "<a>"}, `[{"name":"a","description":"\u003ca\u003e","required":true},{"name":"arg2","description":"argument 2"},{"name":"arg3","description":"argument 3"}]`},
		{"$$ is no placeholder", plugincontent.Command{Body: "costs $$5"}, "null"},
	} {
		if got := args(tt.cmd); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, got, tt.want)
		}
	}
}

func TestElicitSchema(t *testing.T) {
	fields := []editorui.Field{
		{Key: "style", Label: "Style", Kind: extproto.FieldSelect, Options: []string{"a", "b"}, Default: json.RawMessage(`"b"`), Required: true},
		{Key: "name", Kind: extproto.FieldInput},
		{Key: "ok", Label: "Sure?", Kind: extproto.FieldConfirm, Default: json.RawMessage(`true`)},
		{Key: "tags", Kind: extproto.FieldMultiselect, Options: []string{"x", "y"}},
	}
	b, _ := json.Marshal(elicitSchema(fields))
	want := `{"properties":{"name":{"title":"name","type":"string"},"ok":{"default":true,"title":"Sure?","type":"boolean"},"style":{"default":"b","enum":["a","b"],"title":"Style","type":"string"},"tags":{"items":{"enum":["x","y"],"type":"string"},"title":"tags","type":"array"}},"required":["style"],"type":"object"}`
	if string(b) != want {
		t.Errorf("schema = %s\nwant %s", b, want)
	}
	if a := elicitAnswer(&mcp.ElicitResult{Action: "decline"}); !a.Cancelled {
		t.Error("a declined elicitation is not a cancel")
	}
	a := elicitAnswer(&mcp.ElicitResult{Action: "accept", Content: map[string]any{"style": "a", "ok": false}})
	if a.Cancelled || string(a.Values["style"]) != `"a"` || string(a.Values["ok"]) != "false" {
		t.Errorf("accepted answer = %+v", a)
	}
}
