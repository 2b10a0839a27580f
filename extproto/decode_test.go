package extproto

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const (
	goodIntercept  = `{"event":"input.receive","seq":1,"payload":{"text":"/fs hello world"},"timeoutMillis":5000}`
	goodInitialize = `{"protocolVersion":"1","protocolId":"reasonix.extension.v1","manifest":{"intercepts":["input.receive","tool.before"],"replaces":["system_prompt"],"capabilities":["providers","ui"]},"session":{"sessionId":"sess-conf","workspaceRoot":"/ws","generation":1},"capabilities":{"contentRefs":true,"uiHost":"headless","protocolVersion":"1"}}`
	goodStreamOpen = `{"streamId":"es_3f9c0a1b2c3d4e5f60718293","providerRef":"plugin/example-ext/fake/echo","model":"echo","effort":"low","request":{"messages":[{"role":"user","content":"hi"}],"tools":[],"maxTokens":0},"seqBase":1}`
	goodSHA        = "5d41402abc4b2a76b9719d911017c592ae1f1b0e3f2c1d0a9b8c7d6e5f4a3b2c"
)

// assertProtocolError checks that err is an *Error of reason, with the
// table's code and retryable flag, whose message is exactly msg.
func assertProtocolError(t *testing.T, err error, reason Reason, msg string) {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *protocol.Error", err, err)
	}
	if pe.Reason != reason || pe.Message != msg {
		t.Fatalf("got %s %q\nwant %s %q", pe.Reason, pe.Message, reason, msg)
	}
	if info, _ := reason.Info(); pe.Code != info.Code || pe.Retryable != info.Retryable {
		t.Fatalf("code/retryable %d/%v, want the table's %d/%v", pe.Code, pe.Retryable, info.Code, info.Retryable)
	}
}

// assertDecodeError is assertProtocolError for a decoding failure, whose
// cause must be the *FieldError the message ends with.
func assertDecodeError(t *testing.T, err error, reason Reason, msg string) {
	t.Helper()
	assertProtocolError(t, err, reason, msg)
	var fe *FieldError
	if !errors.As(err, &fe) || !strings.HasSuffix(msg, fe.Error()) {
		t.Fatalf("cause %v does not carry the detail of %q", fe, msg)
	}
}

func TestDecodeParamsRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		raw    string
		msg    string // after "invalid <method> params: "
	}{
		// Shape of the document.
		{"array params", MethodIntercept, `[]`, "want object, got array"},
		{"null params", MethodIntercept, `null`, "want object, got null"},
		{"trailing object", MethodInitialized, `{}{}`, "trailing data after the JSON value"},
		{"trailing garbage", MethodShutdown, `{"timeoutMillis":1} x`, "trailing data after the JSON value"},
		{"truncated", MethodShutdown, `{"timeoutMillis":1`, "invalid JSON: unexpected end of input after object member"},
		{"bad literal", MethodShutdown, `{"timeoutMillis":nul}`, "/timeoutMillis: want integer, got null"},
		{"bad escape", MethodStreamCancel, `{"streamId":"a\x"}`, `/streamId: invalid JSON: unexpected character 'x' in string escape at offset 15`},
		{"control char in string", MethodStreamCancel, "{\"streamId\":\"a\nb\"}", `/streamId: invalid JSON: unexpected byte 0x0a in string at offset 14`},
		{"leading zero", MethodShutdown, `{"timeoutMillis":01}`, "invalid JSON: unexpected character '1' after object member at offset 18"},
		{"deep nesting in any-JSON", MethodIntercept, `{"event":"input.receive","seq":1,"timeoutMillis":1,"payload":` + strings.Repeat("[", maxDepth+2), "/payload: invalid JSON: nesting exceeds the maximum depth"},

		// Member names.
		{"unknown member", MethodIntercept, `{"event":"input.receive","seq":1,"payload":{},"timeoutMillis":1,"foo":1}`, "/foo: unknown field"},
		{"wrong case", MethodShutdown, `{"TimeoutMillis":1}`, "/TimeoutMillis: unknown field"},
		{"unknown nested member", MethodInitialize, strings.Replace(goodInitialize, `"generation":1`, `"generation":1,"pid":7`, 1), "/session/pid: unknown field"},
		{"unknown member in array element", MethodStreamOpen, strings.Replace(goodStreamOpen, `"content":"hi"`, `"content":"hi","Role":"user"`, 1), "/request/messages/0/Role: unknown field"},
		{"pointer escaping", MethodShutdown, `{"a/b~c":1}`, "/a~1b~0c: unknown field"},
		{"duplicate member", MethodShutdown, `{"timeoutMillis":1,"timeoutMillis":2}`, "/timeoutMillis: duplicate field"},

		// Required members.
		{"missing payload", MethodIntercept, `{"event":"input.receive","seq":1,"timeoutMillis":1}`, "/payload: required field missing"},
		{"missing event", MethodEvent, `{"payload":{}}`, "/event: required field missing"},
		{"empty params of a method with members", MethodShutdown, ``, "/timeoutMillis: required field missing"},
		{"missing nested", MethodInitialize, strings.Replace(goodInitialize, `,"generation":1`, ``, 1), "/session/generation: required field missing"},
		{"null required", MethodIntercept, `{"event":null,"seq":1,"payload":{},"timeoutMillis":1}`, "/event: must not be null"},
		{"null required object", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":null}`, "/chunk: must not be null"},
		{"null any-JSON payload", MethodUIPublish, `{"surfaceId":"s","sessionId":"x","generation":1,"kind":"status","payload":null}`, "/payload: must not be null"},
		{"null required array", MethodResourcesChanged, `{"paths":null}`, "/paths: must not be null"},
		{"null required map", MethodUISubmit, `{"surfaceId":"s","sessionId":"x","generation":1,"values":null}`, "/values: must not be null"},

		// JSON types.
		{"string for integer", MethodIntercept, `{"event":"input.receive","seq":"1","payload":{},"timeoutMillis":1}`, "/seq: want integer, got string"},
		{"fraction for integer", MethodIntercept, `{"event":"input.receive","seq":1.5,"payload":{},"timeoutMillis":1}`, "/seq: want integer, got number 1.5"},
		{"exponent for integer", MethodIntercept, `{"event":"input.receive","seq":1e2,"payload":{},"timeoutMillis":1}`, "/seq: want integer, got number 1e2"},
		{"integer overflow", MethodIntercept, `{"event":"input.receive","seq":9223372036854775808,"payload":{},"timeoutMillis":1}`, "/seq: integer 9223372036854775808 out of range"},
		{"number for string", MethodStreamCancel, `{"streamId":7}`, "/streamId: want string, got number"},
		{"string for boolean", MethodInitialize, strings.Replace(goodInitialize, `"contentRefs":true`, `"contentRefs":"true"`, 1), "/capabilities/contentRefs: want boolean, got string"},
		{"object for array", MethodResourcesChanged, `{"paths":{}}`, "/paths: want array, got object"},
		{"number in string array", MethodInitialize, strings.Replace(goodInitialize, `"tool.before"]`, `"tool.before",3]`, 1), "/manifest/intercepts/2: want string, got number"},
		{"null in string array", MethodResourcesChanged, `{"paths":["a",null]}`, "/paths/1: want string, got null"},
		{"array for object", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":[]}`, "/chunk: want object, got array"},
		{"number for float", MethodStreamOpen, strings.Replace(goodStreamOpen, `"maxTokens":0`, `"maxTokens":0,"temperature":"hot"`, 1), "/request/temperature: want number, got string"},
		{"float out of range", MethodStreamOpen, strings.Replace(goodStreamOpen, `"maxTokens":0`, `"maxTokens":0,"temperature":1e999`, 1), "/request/temperature: number 1e999 out of range"},
		{"non-string map value", MethodUIAction, `{"actionId":"a","sessionId":"s","generation":1,"args":{"k":1}}`, "/args/k: want string, got number"},
		{"duplicate map key", MethodUIAction, `{"actionId":"a","sessionId":"s","generation":1,"args":{"k":"1","k":"2"}}`, "/args/k: duplicate key"},

		// Enums.
		{"unknown hook point", MethodIntercept, `{"event":"input.recv","seq":1,"payload":{},"timeoutMillis":1}`, `/event: value "input.recv" not in [agent.before_start compaction.complete compaction.prepare context.prepare frontend.event input.receive permission.decision provider.request provider.response session.end session.load session.rotate session.save session.start system_prompt.build tool.after tool.before]`},
		{"enum is case-sensitive", MethodUIPublish, `{"surfaceId":"s","sessionId":"x","generation":1,"kind":"Status","payload":{}}`, `/kind: value "Status" not in [card form notification status]`},
		{"uiHost", MethodInitialize, strings.Replace(goodInitialize, `"headless"`, `"web"`, 1), `/capabilities/uiHost: value "web" not in [acp desktop headless tui]`},
		{"message role", MethodStreamOpen, strings.Replace(goodStreamOpen, `"role":"user"`, `"role":"robot"`, 1), `/request/messages/0/role: value "robot" not in [assistant system tool user]`},
		{"chunk type", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"delta"}}`, `/chunk/type: value "delta" not in [done error reasoning text tool_call tool_call_args_delta tool_call_start usage]`},
		{"request kind", MethodUIRequest, `{"surfaceId":"s","sessionId":"x","generation":1,"kind":"textarea","payload":{}}`, `/kind: value "textarea" not in [confirm input multiselect select]`},

		// minLength (non-blank after trim) and minimum.
		{"empty string", MethodStreamCancel, `{"streamId":""}`, "/streamId: must not be blank"},
		{"blank string", MethodStreamCancel, `{"streamId":" \t "}`, "/streamId: must not be blank"},
		{"blank nested", MethodInitialize, strings.Replace(goodInitialize, `"workspaceRoot":"/ws"`, `"workspaceRoot":"  "`, 1), "/session/workspaceRoot: must not be blank"},
		{"seq 0", MethodIntercept, `{"event":"input.receive","seq":0,"payload":{},"timeoutMillis":1}`, "/seq: must be >= 1"},
		{"negative timeout", MethodIntercept, `{"event":"input.receive","seq":1,"payload":{},"timeoutMillis":-1}`, "/timeoutMillis: must be >= 0"},
		{"negative offset", MethodContentRead, `{"contentRef":"c","offset":-1}`, "/offset: must be >= 0"},
		{"negative seqBase", MethodStreamOpen, strings.Replace(goodStreamOpen, `"seqBase":1`, `"seqBase":-1`, 1), "/seqBase: must be >= 0"},
		{"negative maxTokens", MethodStreamOpen, strings.Replace(goodStreamOpen, `"maxTokens":0`, `"maxTokens":-1`, 1), "/request/maxTokens: must be >= 0"},
		{"chunk seq 0", MethodStreamChunk, `{"streamId":"s","seq":0,"chunk":{"type":"done"}}`, "/seq: must be >= 1"},
		{"negative lastSeq", MethodStreamEnd, `{"streamId":"s","lastSeq":-1}`, "/lastSeq: must be >= 0"},
		{"negative argChars", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"tool_call_args_delta","argChars":-3}}`, "/chunk/argChars: must be >= 0"},

		// Externalized descriptors.
		{"sha256 uppercase", MethodIntercept, `{"event":"input.receive","seq":2,"payload":null,"timeoutMillis":1,"externalized":[{"jsonPointer":"/payload","contentRef":"c","totalBytes":1,"sha256":"` + strings.ToUpper(goodSHA) + `"}]}`, "/externalized/0/sha256: must be 64 lowercase hex characters"},
		{"sha256 prefixed", MethodEvent, `{"event":"session.end","payload":null,"externalized":[{"jsonPointer":"/payload","contentRef":"c","totalBytes":1,"sha256":"sha256:` + goodSHA + `"}]}`, "/externalized/0/sha256: must be 64 lowercase hex characters"},
		{"sha256 short", MethodIntercept, `{"event":"input.receive","seq":2,"payload":null,"timeoutMillis":1,"externalized":[{"jsonPointer":"/payload","contentRef":"c","totalBytes":1,"sha256":"abc"}]}`, "/externalized/0/sha256: must be 64 lowercase hex characters"},
		{"negative totalBytes", MethodIntercept, `{"event":"input.receive","seq":2,"payload":null,"timeoutMillis":1,"externalized":[{"jsonPointer":"/payload","contentRef":"c","totalBytes":-1,"sha256":"` + goodSHA + `"}]}`, "/externalized/0/totalBytes: must be >= 0"},

		// Semantic validators.
		{"messages null", MethodStreamOpen, strings.Replace(goodStreamOpen, `"messages":[{"role":"user","content":"hi"}]`, `"messages":null`, 1), "/request/messages: must not be null"},
		{"tools missing", MethodStreamOpen, strings.Replace(goodStreamOpen, `"tools":[],`, ``, 1), "/request/tools: required field missing"},
		{"tool parameters array", MethodStreamOpen, strings.Replace(goodStreamOpen, `"tools":[]`, `"tools":[{"name":"lookup","parameters":[1]}]`, 1), "/request/tools/0/parameters: must be a JSON object"},
		{"tool parameters null", MethodStreamOpen, strings.Replace(goodStreamOpen, `"tools":[]`, `"tools":[{"name":"lookup","parameters":null}]`, 1), "/request/tools/0/parameters: must not be null"},
		{"tool parameters string", MethodStreamOpen, strings.Replace(goodStreamOpen, `"tools":[]`, `"tools":[{"name":"lookup","parameters":"{}"}]`, 1), "/request/tools/0/parameters: must be a JSON object"},
		{"blank responseFormat type", MethodStreamOpen, strings.Replace(goodStreamOpen, `"maxTokens":0`, `"maxTokens":0,"responseFormat":{"type":" "}`, 1), "/request/responseFormat/type: must not be blank"},
		{"blank stream id", MethodStreamOpen, strings.Replace(goodStreamOpen, `"es_3f9c0a1b2c3d4e5f60718293"`, `""`, 1), "/streamId: must not be blank"},
		{"tool call without id", MethodStreamOpen, strings.Replace(goodStreamOpen, `"content":"hi"`, `"tool_calls":[{"name":"n","arguments":""}]`, 1), "/request/messages/0/tool_calls/0/id: required field missing"},
		{"error chunk without error", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"error"}}`, "/chunk/error: required for an error chunk"},
		{"error on a text chunk", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"text","text":"x","error":{"code":"provider_failed","message":"m"}}}`, "/chunk/error: only allowed in an error chunk, not text"},
		{"error code", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"error","error":{"code":"boom","message":"m"}}}`, `/chunk/error/code: value "boom" not in [provider_failed provider_interrupted]`},
		{"blank error message", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"error","error":{"code":"provider_failed","message":""}}}`, "/chunk/error/message: must not be blank"},
		{"usage chunk without usage", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"usage"}}`, "/chunk/usage: required for a usage chunk"},
		{"usage member missing", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"usage","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2,"cacheHitTokens":0,"cacheMissTokens":0}}}`, "/chunk/usage/reasoningTokens: required field missing"},
		{"tool_call chunk without call", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"tool_call"}}`, "/chunk/toolCall: required for a tool_call chunk"},
		{"tool_call_start without call", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"tool_call_start"}}`, "/chunk/toolCall: required for a tool_call_start chunk"},
		{"tool call blank name", MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"tool_call","toolCall":{"id":"c","name":" ","arguments":"{}"}}}`, "/chunk/toolCall/name: must not be blank"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := DecodeParams(tt.method, json.RawMessage(tt.raw))
			if err == nil {
				t.Fatalf("accepted: %+v", v)
			}
			assertDecodeError(t, err, ReasonInvalidParams, "invalid "+tt.method+" params: "+tt.msg)
		})
	}
}

func TestDecodeParamsUnknownMethod(t *testing.T) {
	t.Parallel()
	_, err := DecodeParams("extension/bogus", json.RawMessage(`{}`))
	assertProtocolError(t, err, ReasonUnknownMethod, "method not found: extension/bogus")
	if !errors.Is(err, ErrUnknownMethod) {
		t.Fatal("errors.Is(err, ErrUnknownMethod) = false")
	}
}

func TestDecodeParamsAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		raw    string
		want   any
	}{
		{"intercept", MethodIntercept, goodIntercept, &InterceptParams{Event: InputReceive, Seq: 1, Payload: json.RawMessage(`{"text":"/fs hello world"}`), TimeoutMillis: 5000}},
		{"externalized intercept", MethodIntercept, `{"event":"input.receive","seq":2,"payload":null,"timeoutMillis":15000,"externalized":[{"jsonPointer":"/payload","contentRef":"content_9b1f0c2d3e4a5b6c7d8e9f01","totalBytes":102425,"sha256":"` + goodSHA + `"}]}`,
			&InterceptParams{Event: InputReceive, Seq: 2, Payload: json.RawMessage(`null`), TimeoutMillis: 15000, Externalized: []ExternalizedField{{JSONPointer: "/payload", ContentRef: "content_9b1f0c2d3e4a5b6c7d8e9f01", TotalBytes: 102425, SHA256: goodSHA}}}},
		{"payload kept verbatim", MethodEvent, `{"event":"tool.after","payload": {"ok" : true} }`, &EventParams{Event: ToolAfter, Payload: json.RawMessage(`{"ok" : true}`)}},
		{"initialized without params", MethodInitialized, ``, &InitializedParams{}},
		{"catalog with empty params", MethodProviderCatalog, `{}`, &ProviderCatalogParams{}},
		{"white space around", MethodShutdown, " \r\n\t{\"timeoutMillis\":0}\n", &ShutdownParams{}},
		{"escaped member name", MethodShutdown, `{"\u0074imeoutMillis":5000}`, &ShutdownParams{TimeoutMillis: 5000}},
		{"optional null is absent", MethodStreamEnd, `{"streamId":"s","lastSeq":0,"error":null,"interrupted":null}`, &StreamEndParams{StreamID: "s"}},
		{"initialize", MethodInitialize, goodInitialize, &InitializeParams{
			Capabilities:    HostCapabilities{ContentRefs: true, ProtocolVersion: "1", UIHost: UIHostHeadless},
			Manifest:        ManifestExpectation{Capabilities: []string{"providers", "ui"}, Intercepts: []string{"input.receive", "tool.before"}, Replaces: []string{"system_prompt"}},
			ProtocolID:      ProtocolID,
			ProtocolVersion: "1",
			Session:         SessionContext{Generation: 1, SessionID: "sess-conf", WorkspaceRoot: "/ws"},
		}},
		{"generation may be 0 or negative", MethodUIAction, `{"actionId":"open","sessionId":"s","generation":0,"args":{"k":"v"}}`, &UIActionParams{ActionID: "open", SessionID: "s", Args: map[string]string{"k": "v"}}},
		{"submit values", MethodUISubmit, `{"surfaceId":"f","sessionId":"s","generation":-1,"values":{"a":null,"b":["x"]}}`, &UISubmitParams{SurfaceID: "f", SessionID: "s", Generation: -1, Values: map[string]json.RawMessage{"a": json.RawMessage(`null`), "b": json.RawMessage(`["x"]`)}}},
		{"stream open", MethodStreamOpen, strings.Replace(goodStreamOpen, `"maxTokens":0`, `"maxTokens":128,"temperature":0.5`, 1), &StreamOpenParams{
			StreamID: "es_3f9c0a1b2c3d4e5f60718293", ProviderRef: "plugin/example-ext/fake/echo", Model: "echo", Effort: "low", SeqBase: 1,
			Request: ProviderRequest{Messages: []ProviderMessage{{Role: RoleUser, Content: "hi"}}, Tools: []ProviderToolSchema{}, MaxTokens: 128, Temperature: ptr(0.5)},
		}},
		{"tool chunk", MethodStreamChunk, `{"streamId":"es_3f9c","seq":3,"chunk":{"type":"tool_call","toolCall":{"id":"call-1","name":"lookup","arguments":"{\"query\":\"reasonix\"}"}}}`,
			&StreamChunkParams{StreamID: "es_3f9c", Seq: 3, Chunk: ProviderChunk{Type: ChunkToolCall, ToolCall: &ProviderToolCall{ID: "call-1", Name: "lookup", Arguments: `{"query":"reasonix"}`}}}},
		{"usage chunk", MethodStreamChunk, `{"streamId":"es_3f9c","seq":4,"chunk":{"type":"usage","usage":{"promptTokens":5,"completionTokens":7,"totalTokens":12,"cacheHitTokens":2,"cacheMissTokens":3,"reasoningTokens":4,"finishReason":"stop"}}}`,
			&StreamChunkParams{StreamID: "es_3f9c", Seq: 4, Chunk: ProviderChunk{Type: ChunkUsage, Usage: &ProviderUsage{PromptTokens: 5, CompletionTokens: 7, TotalTokens: 12, CacheHitTokens: 2, CacheMissTokens: 3, ReasoningTokens: 4, FinishReason: "stop"}}}},
		{"escapes and repair like encoding/json", MethodStreamCancel, `{"streamId":"a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00\ud800x\udc00` + "\xff" + `é"}`, &StreamCancelParams{StreamID: "a\"\\/\b\f\n\r\té😀\ufffdx\ufffd\ufffdé"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeParams(tt.method, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestDecodeResult(t *testing.T) {
	t.Parallel()
	got, err := DecodeResult(MethodInitialize, json.RawMessage(`{"protocolVersion":"1","name":"example-ext","version":"1.0.0","subscriptions":["input.receive"],"replaces":["system_prompt"],"providers":[{"ref":"plugin/example-ext/fake/echo","displayName":"example fake","model":"echo","contextWindow":64000,"tools":true,"reasoning":true,"efforts":["low","high"],"defaultEffort":"low"}],"uiActions":[{"actionId":"demo","label":"Run the fullsidecar demo"}],"stateSchemaVersion":0}`))
	if err != nil {
		t.Fatal(err)
	}
	want := &InitializeResult{
		ProtocolVersion: "1", Name: "example-ext", Version: "1.0.0",
		Subscriptions: []string{"input.receive"}, Replaces: []string{"system_prompt"},
		Providers: []ProviderDescriptor{{Ref: "plugin/example-ext/fake/echo", DisplayName: "example fake", Model: "echo", ContextWindow: 64000, Tools: true, Reasoning: true, Efforts: []string{"low", "high"}, DefaultEffort: "low"}},
		UIActions: []UIActionDecl{{ActionID: "demo", Label: "Run the fullsidecar demo"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %#v\nwant %#v", got, want)
	}

	rejects := []struct {
		name, method, raw, msg string
	}{
		{"missing stateSchemaVersion", MethodInitialize, `{"protocolVersion":"1","name":"x","version":"1"}`, "/stateSchemaVersion: required field missing"},
		{"negative stateSchemaVersion", MethodInitialize, `{"protocolVersion":"1","name":"x","version":"1","stateSchemaVersion":-1}`, "/stateSchemaVersion: must be >= 0"},
		{"blank action id", MethodInitialize, `{"protocolVersion":"1","name":"x","version":"1","stateSchemaVersion":0,"uiActions":[{"actionId":""}]}`, "/uiActions/0/actionId: must not be blank"},
		{"decision", MethodIntercept, `{"decision":"maybe"}`, `/decision: value "maybe" not in [allow block continue deny replace]`},
		{"empty result", MethodShutdown, ``, "want object, got end of input"},
		{"catalog null", MethodProviderCatalog, `{"providers":null}`, "/providers: must not be null"},
		{"content sha", MethodContentRead, `{"contentRef":"c","offset":0,"dataBase64":"","totalBytes":0,"sha256":"x","encoding":"utf8"}`, "/sha256: must be 64 lowercase hex characters"},
		{"content encoding", MethodContentRead, `{"contentRef":"c","offset":0,"dataBase64":"","totalBytes":0,"sha256":"` + goodSHA + `","encoding":"base64"}`, `/encoding: value "base64" not in [utf8]`},
		{"content nextOffset null is absent but negative is not", MethodContentRead, `{"contentRef":"c","offset":0,"dataBase64":"","totalBytes":0,"sha256":"` + goodSHA + `","encoding":"utf8","nextOffset":-1}`, "/nextOffset: must be >= 0"},
	}
	for _, tt := range rejects {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := DecodeResult(tt.method, json.RawMessage(tt.raw))
			assertDecodeError(t, err, ReasonProtocolError, "invalid "+tt.method+" result: "+tt.msg)
		})
	}

	t.Run("notification has no result", func(t *testing.T) {
		t.Parallel()
		_, err := DecodeResult(MethodEvent, json.RawMessage(`{}`))
		assertProtocolError(t, err, ReasonUnknownMethod, "no result registered for method extension/event")
	})
}

func TestDecodeReplacesPreviousContents(t *testing.T) {
	t.Parallel()
	v := StreamEndParams{Error: "old", Interrupted: true}
	if err := Decode([]byte(`{"streamId":"s","lastSeq":2}`), &v); err != nil {
		t.Fatal(err)
	}
	if want := (StreamEndParams{StreamID: "s", LastSeq: 2}); v != want {
		t.Fatalf("got %+v, want %+v", v, want)
	}
}

func TestDecodeDistinguishesEmptyFromAbsent(t *testing.T) {
	t.Parallel()
	var present, absent ContextPreparePayload
	if err := Decode([]byte(`{"messages":[]}`), &present); err != nil {
		t.Fatal(err)
	}
	if present.Messages == nil {
		t.Fatal(`"messages":[] decoded as nil`)
	}
	if err := Decode([]byte(`{}`), &absent); err == nil || absent.Messages != nil {
		t.Fatalf("absent messages: err %v, messages %#v", err, absent.Messages)
	}
}

func TestDecodeRejectsUnsupportedTypes(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("Decode of a struct with an `any` member did not panic")
		}
	}()
	var v struct {
		X any `json:"x"`
	}
	_ = Decode([]byte(`{}`), &v)
}
