package extproto

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestEveryPointHasAPayload(t *testing.T) {
	t.Parallel()
	if len(payloadTypes) != len(HookPoints) {
		t.Fatalf("%d payload types for %d points", len(payloadTypes), len(HookPoints))
	}
	for _, p := range HookPoints {
		v := NewPayload(p)
		if v == nil || v.Point() != p {
			t.Errorf("NewPayload(%s) = %T", p, v)
		}
	}
	if NewPayload("bogus") != nil {
		t.Fatal("NewPayload of an unknown point is not nil")
	}
}

func TestDecodePayloadAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		point HookPoint
		raw   string
		want  Payload
	}{
		{InputReceive, `{"text":"hello world [rewritten]"}`, &InputReceivePayload{Text: "hello world [rewritten]"}},
		{AgentBeforeStart, `{"model":"m","toolCount":3,"sessionId":"s"}`, &AgentBeforeStartPayload{Model: "m", ToolCount: 3, SessionID: "s"}},
		{SystemPromptBuild, `{"workspaceRoot":"/ws"}`, &SystemPromptBuildPayload{WorkspaceRoot: "/ws"}},
		{ContextPrepare, `{"messages":[]}`, &ContextPreparePayload{Messages: []ProviderMessage{}}},
		{ContextPrepare, `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","name":"n","arguments":""}]}]}`, &ContextPreparePayload{Messages: []ProviderMessage{{Role: RoleAssistant, ToolCalls: []ProviderToolCall{{ID: "c", Name: "n"}}}}}},
		{ProviderRequestPt, `{"request":{"messages":[],"tools":[{"name":"t","parameters":{"type":"object"}}],"maxTokens":5}}`, &ProviderRequestPayload{Request: &ProviderRequest{Messages: []ProviderMessage{}, Tools: []ProviderToolSchema{{Name: "t", Parameters: json.RawMessage(`{"type":"object"}`)}}, MaxTokens: 5}}},
		{ProviderResponsePt, `{}`, &ProviderResponsePayload{}},
		{ProviderResponsePt, `{"text":"t","calls":[{"id":"c","name":"n","arguments":"{}"}],"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2,"cacheHitTokens":0,"cacheMissTokens":1,"reasoningTokens":0}}`, &ProviderResponsePayload{Text: "t", Calls: []ProviderToolCall{{ID: "c", Name: "n", Arguments: "{}"}}, Usage: &ProviderUsage{PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2, CacheMissTokens: 1}}},
		{ToolBefore, `{"name":"read"}`, &ToolBeforePayload{Name: "read"}},
		{ToolBefore, `{"name":"read","arguments":" {\"path\":\"a\"} "}`, &ToolBeforePayload{Name: "read", Arguments: ` {"path":"a"} `}},
		{ToolAfter, `{"name":"read","arguments":"{}","result":"","isError":true}`, &ToolAfterPayload{Name: "read", Arguments: "{}", IsError: true}},
		{PermissionDecision, `{"name":"rm","arguments":"{}","readOnly":false,"hostDecision":"deny"}`, &PermissionDecisionPayload{Name: "rm", Arguments: "{}", HostDecision: HostDeny}},
		{CompactionPrepare, `{"messages":[],"guidance":"short"}`, &CompactionPreparePayload{Messages: []ProviderMessage{}, Guidance: "short"}},
		{CompactionComplete, `{"summary":"s"}`, &CompactionCompletePayload{Summary: "s"}},
		{FrontendEvent, `{"kind":"notice","text":"t"}`, &FrontendEventPayload{Kind: "notice", Text: "t"}},
		{SessionStart, `{"sessionPath":"/p","phase":"start"}`, &SessionStartPayload{SessionPath: "/p", Phase: PhaseStart}},
		{SessionEnd, `{"phase":"end"}`, &SessionEndPayload{Phase: PhaseEnd}},
		{SessionLoad, `{"phase":"load"}`, &SessionLoadPayload{Phase: PhaseLoad}},
		{SessionSave, `{"phase":"save"}`, &SessionSavePayload{Phase: PhaseSave}},
		{SessionRotate, `{"phase":"rotate"}`, &SessionRotatePayload{Phase: PhaseRotate}},
	}
	for _, tt := range tests {
		t.Run(string(tt.point), func(t *testing.T) {
			t.Parallel()
			got, err := DecodePayload(tt.point, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDecodePayloadRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		point HookPoint
		raw   string
		msg   string // after "invalid <point> payload: "
	}{
		{"null replacement", InputReceive, `null`, "want object, got null"},
		{"no replacement", ProviderResponsePt, ``, "want object, got end of input"},
		{"trailing data", InputReceive, `{"text":"a"} {}`, "trailing data after the JSON value"},
		{"wrong case", InputReceive, `{"TEXT":"x"}`, "/TEXT: unknown field"},
		{"unknown member", InputReceive, `{"text":"x","n":2}`, "/n: unknown field"},
		{"unknown nested member", ContextPrepare, `{"messages":[{"role":"user","html":"<b>"}]}`, "/messages/0/html: unknown field"},
		{"empty input", InputReceive, `{"text":""}`, "/text: must not be blank"},
		{"blank input", InputReceive, `{"text":"  "}`, "/text: must not be blank"},
		{"missing input", InputReceive, `{}`, "/text: must not be blank"},
		{"session id", AgentBeforeStart, `{"model":"m"}`, "/sessionId: must not be blank"},
		{"negative tool count", AgentBeforeStart, `{"sessionId":"s","toolCount":-1}`, "/toolCount: must be >= 0"},
		{"workspace root", SystemPromptBuild, `{"prompt":"p"}`, "/workspaceRoot: must not be blank"},
		{"context messages absent", ContextPrepare, `{}`, "/messages: must be present as an array"},
		{"context messages null", ContextPrepare, `{"messages":null}`, "/messages: must be present as an array"},
		{"context message role", ContextPrepare, `{"messages":[{"role":"bot"}]}`, `/messages/0/role: value "bot" not in [assistant system tool user]`},
		{"compaction messages absent", CompactionPrepare, `{"guidance":"g"}`, "/messages: must be present as an array"},
		{"request absent", ProviderRequestPt, `{}`, "/request: required"},
		{"request messages null", ProviderRequestPt, `{"request":{"messages":null,"tools":[],"maxTokens":0}}`, "/request/messages: must not be null"},
		{"request tool parameters", ProviderRequestPt, `{"request":{"messages":[],"tools":[{"name":"t","parameters":true}],"maxTokens":0}}`, "/request/tools/0/parameters: must be a JSON object"},
		{"response call without id", ProviderResponsePt, `{"calls":[{"id":"","name":"n","arguments":""}]}`, "/calls/0/id: must not be blank"},
		{"response call without name", ProviderResponsePt, `{"calls":[{"id":"a","name":"n","arguments":""},{"id":"b","arguments":""}]}`, "/calls/1/name: required field missing"},
		{"response usage", ProviderResponsePt, `{"usage":{"promptTokens":-1,"completionTokens":0,"totalTokens":0,"cacheHitTokens":0,"cacheMissTokens":0,"reasoningTokens":0}}`, "/usage/promptTokens: must be >= 0"},
		{"tool name", ToolBefore, `{"arguments":"{}"}`, "/name: must not be blank"},
		{"tool arguments array", ToolBefore, `{"name":"t","arguments":"[1]"}`, "/arguments: must be empty or the text of a JSON object"},
		{"tool arguments trailing", ToolBefore, `{"name":"t","arguments":"{} {}"}`, "/arguments: must be empty or the text of a JSON object"},
		{"tool arguments broken", ToolAfter, `{"name":"t","arguments":"{\"a\":"}`, "/arguments: must be empty or the text of a JSON object"},
		{"tool after name", ToolAfter, `{"result":"r"}`, "/name: must not be blank"},
		{"permission name", PermissionDecision, `{"hostDecision":"allow"}`, "/name: must not be blank"},
		{"permission decision missing", PermissionDecision, `{"name":"rm"}`, `/hostDecision: value "" not in [allow deny]`},
		{"permission decision value", PermissionDecision, `{"name":"rm","hostDecision":"maybe"}`, `/hostDecision: value "maybe" not in [allow deny]`},
		{"permission arguments", PermissionDecision, `{"name":"rm","hostDecision":"allow","arguments":"1"}`, "/arguments: must be empty or the text of a JSON object"},
		{"summary", CompactionComplete, `{"summary":""}`, "/summary: must not be blank"},
		{"frontend kind", FrontendEvent, `{"text":"t"}`, "/kind: must not be blank"},
		{"phase of another point", SessionSave, `{"phase":"load"}`, `/phase: is "load" but session.save requires "save"`},
		{"phase missing", SessionStart, `{"sessionPath":"/p"}`, `/phase: value "" not in [end load rotate save start]`},
		{"phase unknown", SessionEnd, `{"phase":"finish"}`, `/phase: value "finish" not in [end load rotate save start]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := DecodePayload(tt.point, json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("accepted: %#v", v)
			}
			assertDecodeError(t, err, ReasonInvalidParams, "invalid "+string(tt.point)+" payload: "+tt.msg)
		})
	}
	t.Run("unknown point", func(t *testing.T) {
		t.Parallel()
		_, err := DecodePayload("tool.during", json.RawMessage(`{}`))
		assertProtocolError(t, err, ReasonInvalidParams, `unknown hook point "tool.during"`)
	})
}

// The host sends an empty message list as `{}` (omitempty), which is a
// valid payload to send but not a valid replacement: replacements must
// state the list.
func TestEmptyMessagesEncodeAsEmptyPayload(t *testing.T) {
	t.Parallel()
	for _, p := range []Payload{ContextPreparePayload{Messages: []ProviderMessage{}}, CompactionPreparePayload{}} {
		b, err := json.Marshal(p)
		if err != nil || string(b) != `{}` {
			t.Fatalf("%T encodes as %s, %v", p, b, err)
		}
		if _, err := DecodePayload(p.Point(), b); err == nil {
			t.Fatalf("%T: `{}` accepted as a replacement", p)
		}
	}
}

func TestSessionPayloadConversions(t *testing.T) {
	t.Parallel()
	base := SessionPayload{SessionPath: "/s", Phase: PhaseRotate}
	if err := SessionRotatePayload(base).Validate(); err != nil {
		t.Fatal(err)
	}
	if err := SessionStartPayload(base).Validate(); err == nil {
		t.Fatal("rotate phase accepted at session.start")
	}
}
