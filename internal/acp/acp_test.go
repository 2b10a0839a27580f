package acp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

func TestProtocolVersion(t *testing.T) {
	t.Parallel()
	if ProtocolVersion != 1 {
		t.Fatalf("ProtocolVersion = %d, want 1", ProtocolVersion)
	}
}

func TestErrorCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code, want int
	}{{codeInvalidRequest, -32600}, {codeInvalidParams, -32602}, {codeInternal, -32603}} {
		if tc.code != tc.want {
			t.Errorf("code %d, want %d", tc.code, tc.want)
		}
	}
	if e := agentError("session/prompt", agent.ErrBusy); e.Code != -32600 || e.Message != "session/prompt: session already has an active prompt" {
		t.Errorf("busy: %+v", e)
	}
}

func TestFlattenPrompt(t *testing.T) {
	t.Parallel()
	res := acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{Uri: "file:///w/a.go", Text: "package a"}})
	for _, tc := range []struct {
		name   string
		blocks []acpsdk.ContentBlock
		want   string
	}{
		{"text", []acpsdk.ContentBlock{acpsdk.TextBlock("  hi  ")}, "hi"},
		{"joined", []acpsdk.ContentBlock{acpsdk.TextBlock("a"), acpsdk.TextBlock("b")}, "a\n\nb"},
		{"embedded resource", []acpsdk.ContentBlock{acpsdk.TextBlock("look"), res}, "look\n\nResource file:///w/a.go:\npackage a"},
		{"resource link", []acpsdk.ContentBlock{acpsdk.ResourceLinkBlock("a.go", "file:///w/a.go")}, "Resource file:///w/a.go"},
		{"image not in the text", []acpsdk.ContentBlock{acpsdk.ImageBlock("AAAA", "image/png")}, ""},
		{"slash stays first", []acpsdk.ContentBlock{acpsdk.TextBlock("/hello:greet name=Ada"), res}, "/hello:greet name=Ada\n\nResource file:///w/a.go:\npackage a"},
	} {
		if got := flatten(tc.blocks); got != tc.want {
			t.Errorf("%s: flatten = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestToolKindFor(t *testing.T) {
	t.Parallel()
	for in, want := range map[tools.Kind]acpsdk.ToolKind{
		tools.KindRead: "read", tools.KindEdit: "edit", tools.KindSearch: "search", tools.KindExecute: "execute",
		"": "other", "think": "think", "fetch": "other",
	} {
		if got := toolKind(in); got != want {
			t.Errorf("toolKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	if got := clip("short", 10); got != "short" {
		t.Errorf("clip short = %q", got)
	}
	got := clip(strings.Repeat("x", 20), 10)
	if got != strings.Repeat("x", 10)+"\n…(10 more chars truncated)" {
		t.Errorf("clip = %q", got)
	}
}

func TestClipKeepsValidUTF8(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 10) // 2 bytes each
	got := clip(s, 5)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "éé\n") {
		t.Errorf("clip = %q", got)
	}
}

func TestServeRejectsPathLikeSessionID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"":                    "session/load: missing sessionId",
		".":                   "session/load: invalid sessionId",
		"..":                  "session/load: invalid sessionId",
		"../x":                "session/load: invalid sessionId",
		"a/b":                 "session/load: invalid sessionId",
		" a":                  "session/load: invalid sessionId",
		"20260101T000000-abc": "",
	} {
		err := checkID("session/load", acpsdk.SessionId(id))
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", id, err)
		case want != "" && (err == nil || err.(*acpsdk.RequestError).Message != want || err.(*acpsdk.RequestError).Code != -32602):
			t.Errorf("%q: err %v, want %q", id, err, want)
		}
	}
}

// wire is an update as a client reads it.
func wire(t *testing.T, u acpsdk.SessionUpdate) map[string]any {
	t.Helper()
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestUpdateSinkMapsEvents(t *testing.T) {
	t.Parallel()
	edit := &agent.ToolCall{ID: "call-1", Key: "tc3", Name: "apply_edit", Title: "Edit a.txt", Kind: tools.KindEdit, Status: agent.ToolPending,
		Arguments: `{"path":"a.txt","content":"new"}`, Locations: []string{"/w/a.txt"}}
	done := *edit
	done.Status, done.Output = agent.ToolCompleted, "wrote a.txt (3 bytes)"
	for _, tc := range []struct {
		name   string
		in     agent.Update
		replay bool
		want   []string // JSON of each update
	}{
		{"message", agent.Update{Kind: agent.UpdateAgentMessage, Text: "hi"}, false,
			[]string{`{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"}`}},
		{"thought", agent.Update{Kind: agent.UpdateAgentThought, Text: "hm"}, false,
			[]string{`{"content":{"text":"hm","type":"text"},"sessionUpdate":"agent_thought_chunk"}`}},
		{"user live: the client shows its own", agent.Update{Kind: agent.UpdateUserMessage, Text: "q"}, false, nil},
		{"user replayed", agent.Update{Kind: agent.UpdateUserMessage, Text: "q"}, true,
			[]string{`{"content":{"text":"q","type":"text"},"sessionUpdate":"user_message_chunk"}`}},
		{"tool call with diff", agent.Update{Kind: agent.UpdateToolCall, ToolCall: edit}, false,
			[]string{`{"content":[{"newText":"new","path":"/w/a.txt","type":"diff"}],"kind":"edit","locations":[{"path":"/w/a.txt"}],"rawInput":{"content":"new","path":"a.txt"},"sessionUpdate":"tool_call","status":"pending","title":"Edit a.txt","toolCallId":"tc3"}`}},
		{"tool call done", agent.Update{Kind: agent.UpdateToolCallUpdate, ToolCall: &done}, false,
			[]string{`{"content":[{"newText":"new","path":"/w/a.txt","type":"diff"},{"content":{"text":"wrote a.txt (3 bytes)","type":"text"},"type":"content"}],"locations":[{"path":"/w/a.txt"}],"sessionUpdate":"tool_call_update","status":"completed","title":"Edit a.txt","toolCallId":"tc3"}`}},
		{"warning notice", agent.Update{Kind: agent.UpdateNotice, Notice: &agent.Notice{Kind: agent.NoticeWarning, Text: "careful"}}, false,
			[]string{`{"content":{"text":"\n\n[warning] careful","type":"text"},"sessionUpdate":"agent_message_chunk"}`}},
		{"failed turn", agent.Update{Kind: agent.UpdateTurnEnd, End: &agent.TurnEnd{Error: "boom"}}, false,
			[]string{`{"content":{"text":"\n\n[error] boom","type":"text"},"sessionUpdate":"agent_message_chunk"}`}},
		{"turn end", agent.Update{Kind: agent.UpdateTurnEnd, End: &agent.TurnEnd{Stop: agent.StopEndTurn}}, false, nil},
		{"permission prompt: request_permission asks", agent.Update{Kind: agent.UpdatePermissionRequest, Permission: &agent.Permission{ToolCallID: "c"}}, false, nil},
		{"usage", agent.Update{Kind: agent.UpdateUsage, Usage: &extproto.ProviderUsage{TotalTokens: 3}}, false, nil},
	} {
		got := mapUpdate(tc.in, tc.replay)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %d updates, want %d", tc.name, len(got), len(tc.want))
			continue
		}
		for i := range got {
			b, _ := json.Marshal(wire(t, got[i]))
			if string(b) != tc.want[i] {
				t.Errorf("%s:\n got %s\nwant %s", tc.name, b, tc.want[i])
			}
		}
	}
}

func TestUpdateSinkDropsSubagentProgress(t *testing.T) {
	t.Parallel()
	sub := &agent.SubagentRef{ID: "s1", Name: "reviewer"}
	for _, u := range []agent.Update{
		{Kind: agent.UpdateAgentMessage, Text: "inner", Subagent: sub},
		{Kind: agent.UpdateToolCall, ToolCall: &agent.ToolCall{ID: "x", Name: "read_file"}, Subagent: sub},
		{Kind: agent.UpdateNotice, Notice: &agent.Notice{Kind: agent.NoticeSubagent, Text: "started"}},
	} {
		if got := mapUpdate(u, false); got != nil {
			t.Errorf("%+v mapped to %+v", u, got)
		}
	}
}

func TestAvailableCommandsIncludeExtensionActions(t *testing.T) {
	t.Parallel()
	cmds := pluginrt.Commands(
		extproto.Actions{{Plugin: "hello", ActionID: "greet", Label: "Greet me"}, {Plugin: "kit", ActionID: "review"}, {Plugin: "z", ActionID: "bare"}},
		[]pluginrt.Slash{
			{Name: "kit:review", Source: pluginrt.SlashCommand, Description: "Review a file\nmore", ArgHint: "path"},
			{Name: "kit:explain", Source: pluginrt.SlashSkill},
			{Name: "mcp__srv__p", Source: pluginrt.SlashMCPPrompt, ArgHint: "<x>"},
		})
	got := availableCommands(cmds)
	b, _ := json.Marshal(got)
	want := `[{"description":"Greet me","input":{"hint":"arguments"},"name":"hello:greet"},` +
		`{"description":"Run the kit:explain skill","input":{"hint":"instructions"},"name":"kit:explain"},` +
		`{"description":"Review a file","input":{"hint":"path"},"name":"kit:review"},` +
		`{"description":"Run the mcp__srv__p MCP prompt","input":{"hint":"arguments"},"name":"mcp__srv__p"},` +
		`{"description":"Run the z:bare extension action","input":{"hint":"arguments"},"name":"z:bare"}]`
	if string(b) != want {
		t.Errorf("available commands:\n got %s\nwant %s", b, want)
	}
}

// TestApprovalOptions: the allow_always option's name is the engine's
// grant label; with no grant offered there is no allow_always.
func TestApprovalOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		grant, want string
	}{
		{"Allow edits to notes.txt for this session", `[{"kind":"allow_once","name":"Allow","optionId":"allow_once"},{"kind":"allow_always","name":"Allow edits to notes.txt for this session","optionId":"allow_always"},{"kind":"reject_once","name":"Reject","optionId":"reject_once"}]`},
		{"", `[{"kind":"allow_once","name":"Allow","optionId":"allow_once"},{"kind":"reject_once","name":"Reject","optionId":"reject_once"}]`},
	} {
		b, _ := json.Marshal(permissionOptions(agent.PermissionRequest{ToolCall: agent.ToolCall{Name: "apply_edit"}, Grant: tc.grant}))
		if string(b) != tc.want {
			t.Errorf("options:\n got %s\nwant %s", b, tc.want)
		}
	}
}
