package extproto

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The decoder faces peer bytes on every frame: it must never panic, every
// failure must be a protocol error naming a JSON pointer, and whatever it
// accepts must (a) decode to the same value under encoding/json, which is
// strictly more lenient, and (b) survive an encode/decode round trip.

var paramSeeds = []struct{ method, raw string }{
	{MethodIntercept, goodIntercept},
	{MethodIntercept, `{"event":"input.receive","seq":2,"payload":null,"timeoutMillis":15000,"externalized":[{"jsonPointer":"/payload","contentRef":"content_9b1f0c2d3e4a5b6c7d8e9f01","totalBytes":102425,"sha256":"` + goodSHA + `"}]}`},
	{MethodIntercept, `{"event":"input.receive","seq":0,"payload":{},"timeoutMillis":-1,"x":1}`},
	{MethodIntercept, `{"event":"bogus","seq":"1"}`},
	{MethodEvent, `{"event":"tool.after","payload":{"ok":true}}`},
	{MethodInitialize, goodInitialize},
	{MethodInitialized, ``},
	{MethodShutdown, `{"timeoutMillis":5000}`},
	{MethodResourcesChanged, `{"paths":["skills/a","themes/b"]}`},
	{MethodProviderCatalog, `{}`},
	{MethodStreamOpen, goodStreamOpen},
	{MethodStreamOpen, strings.Replace(goodStreamOpen, `"tools":[]`, `"tools":[{"name":"t","parameters":[1]}]`, 1)},
	{MethodStreamCancel, `{"streamId":"a\u00e9\ud83d\ude00\ud800"}`},
	{MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"text","text":"fake-hello "}}`},
	{MethodStreamChunk, `{"streamId":"s","seq":4,"chunk":{"type":"usage","usage":{"promptTokens":5,"completionTokens":7,"totalTokens":12,"cacheHitTokens":2,"cacheMissTokens":3,"reasoningTokens":4,"finishReason":"stop"}}}`},
	{MethodStreamChunk, `{"streamId":"s","seq":1,"chunk":{"type":"error","error":{"code":"provider_failed","message":"m"}}}`},
	{MethodStreamEnd, `{"streamId":"s","lastSeq":1,"error":"provider upstream unavailable"}`},
	{MethodUIAction, `{"actionId":"open","sessionId":"s","generation":7,"args":{"k":"v"}}`},
	{MethodUISubmit, `{"surfaceId":"f","sessionId":"s","generation":7,"values":{"a":true}}`},
	{MethodUIPublish, `{"surfaceId":"status-1","sessionId":"sess-1","generation":7,"kind":"status","payload":{"label":"Indexing","progress":0.5}}`},
	{MethodUIRequest, `{"surfaceId":"c","sessionId":"s","generation":7,"kind":"confirm","payload":{"fields":[]}}`},
	{MethodContentRead, `{"contentRef":"c","offset":0}`},
	{"extension/bogus", `{}`},
}

// fuzzMethod maps the fuzzer's selector byte onto the registry, with one
// extra value for an unregistered method.
func fuzzMethod(sel uint8) string {
	all := Methods()
	if i := int(sel) % (len(all) + 1); i < len(all) {
		return all[i].Name
	}
	return "extension/bogus"
}

func methodSelector(name string) uint8 {
	for i, m := range Methods() {
		if m.Name == name {
			return uint8(i)
		}
	}
	return uint8(len(Methods()))
}

func FuzzDecodeParams(f *testing.F) {
	for _, s := range paramSeeds {
		f.Add(methodSelector(s.method), []byte(s.raw))
	}
	f.Fuzz(func(t *testing.T, sel uint8, raw []byte) {
		method := fuzzMethod(sel)
		spec, known := LookupMethod(method)
		v, err := DecodeParams(method, raw)
		if !known {
			if ReasonOf(err) != ReasonUnknownMethod {
				t.Fatalf("unknown method %q: %v", method, err)
			}
			return
		}
		if err != nil {
			checkDecodeFailure(t, err, ReasonInvalidParams)
			return
		}
		if len(raw) == 0 {
			raw = []byte(`{}`)
		}
		checkAccepted(t, raw, v, spec.Params, func(b []byte) (any, error) { return DecodeParams(method, b) })
	})
}

// fuzzPoint maps the fuzzer's selector byte onto the hook points, with one
// extra value for an unknown point.
func fuzzPoint(sel uint8) HookPoint {
	if i := int(sel) % (len(HookPoints) + 1); i < len(HookPoints) {
		return HookPoints[i]
	}
	return "tool.during"
}

func pointSelector(p HookPoint) uint8 {
	for i, q := range HookPoints {
		if q == p {
			return uint8(i)
		}
	}
	return uint8(len(HookPoints))
}

func FuzzDecodePayload(f *testing.F) {
	for _, s := range []struct {
		point HookPoint
		raw   string
	}{
		{InputReceive, `{"text":"hello"}`},
		{InputReceive, `{"TEXT":"x"}`},
		{AgentBeforeStart, `{"model":"m","toolCount":3,"sessionId":"s"}`},
		{SystemPromptBuild, `{"prompt":"p","workspaceRoot":"/ws"}`},
		{ContextPrepare, `{"messages":[{"role":"user","content":"hi","tool_calls":[{"id":"c","name":"n","arguments":""}]}]}`},
		{CompactionPrepare, `{"messages":[],"guidance":"g"}`},
		{ProviderRequestPt, `{"request":{"messages":[],"tools":[{"name":"t","parameters":{}}],"maxTokens":1,"temperature":0.2,"responseFormat":{"type":"json"}}}`},
		{ProviderResponsePt, `{"text":"t","calls":[{"id":"c","name":"n","arguments":"{}"}],"usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2,"cacheHitTokens":0,"cacheMissTokens":1,"reasoningTokens":0}}`},
		{ToolBefore, `{"name":"read","arguments":"{\"path\":\"a\"}"}`},
		{ToolAfter, `{"name":"read","arguments":"[1]","result":"r","isError":true}`},
		{PermissionDecision, `{"name":"rm","hostDecision":"deny","readOnly":true}`},
		{SessionSave, `{"sessionPath":"/s","phase":"save"}`},
		{SessionLoad, `{"phase":"save"}`},
		{FrontendEvent, `{"kind":"k","text":"t","detail":"d"}`},
		{CompactionComplete, `{"summary":"s"} x`},
		{"tool.during", `{}`},
	} {
		f.Add(pointSelector(s.point), []byte(s.raw))
	}
	f.Fuzz(func(t *testing.T, sel uint8, raw []byte) {
		point := fuzzPoint(sel)
		p, err := DecodePayload(point, raw)
		zero := NewPayload(point)
		if zero == nil {
			if err == nil {
				t.Fatalf("unknown point %q accepted", point)
			}
			return
		}
		if err != nil {
			checkDecodeFailure(t, err, ReasonInvalidParams)
			return
		}
		redecode := func(b []byte) (any, error) { return DecodePayload(point, b) }
		if omitsRequiredMessages(p) {
			// By design (PROTOCOL_DETAILS §4.2): the host sends an empty
			// message list as `{}`, which is no valid replacement.
			redecode = nil
		}
		checkAccepted(t, raw, p, reflect.TypeOf(zero).Elem(), redecode)
	})
}

func omitsRequiredMessages(p Payload) bool {
	switch p := p.(type) {
	case *ContextPreparePayload:
		return len(p.Messages) == 0
	case *CompactionPreparePayload:
		return len(p.Messages) == 0
	}
	return false
}

func checkDecodeFailure(t *testing.T, err error, reason Reason) {
	t.Helper()
	var fe *FieldError
	if ReasonOf(err) != reason || !errors.As(err, &fe) {
		t.Fatalf("failure %v (%T) is not a %s with a field error", err, err, reason)
	}
	if fe.Pointer != "" && !strings.HasPrefix(fe.Pointer, "/") {
		t.Fatalf("pointer %q is not an RFC 6901 pointer", fe.Pointer)
	}
}

// checkAccepted compares an accepted value with encoding/json's reading of
// the same bytes and, unless decode is nil, checks that encoding it and
// decoding it again is stable.
func checkAccepted(t *testing.T, raw []byte, got any, typ reflect.Type, decode func([]byte) (any, error)) {
	t.Helper()
	lenient := reflect.New(typ)
	if err := json.Unmarshal(raw, lenient.Interface()); err != nil {
		t.Fatalf("accepted what encoding/json rejects (%v): %q", err, raw)
	}
	if !reflect.DeepEqual(lenient.Interface(), got) {
		t.Fatalf("decoded differently from encoding/json:\n got %#v\nwant %#v\ninput %q", got, lenient.Interface(), raw)
	}
	enc, err := json.Marshal(got)
	if err != nil {
		t.Fatalf("encoding an accepted value: %v", err)
	}
	if decode == nil {
		return
	}
	again, err := decode(enc)
	if err != nil {
		t.Fatalf("re-decoding %s: %v", enc, err)
	}
	enc2, err := json.Marshal(again)
	if err != nil || !bytes.Equal(enc, enc2) {
		t.Fatalf("round trip is not stable:\n%s\n%s", enc, enc2)
	}
}
