package extproto

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Required members are emitted even at their zero value; optional ones are
// omitted when empty; required arrays and objects are never `null`.
func TestEncodeOmitsOnlyOptionalMembers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"stream open result", StreamOpenResult{}, `{"accepted":false}`},
		{"shutdown result", ShutdownResult{}, `{"accepted":false}`},
		{"cancel result", StreamCancelResult{}, `{"cancelled":false}`},
		{"request result", UIRequestResult{}, `{"cancelled":false}`},
		{"action result", UIActionResult{}, `{"accepted":false}`},
		{"shutdown", ShutdownParams{}, `{"timeoutMillis":0}`},
		{"stream open", StreamOpenParams{StreamID: "s", ProviderRef: "plugin/p/x/m"},
			`{"providerRef":"plugin/p/x/m","request":{"maxTokens":0,"messages":[],"tools":[]},"seqBase":0,"streamId":"s"}`},
		{"stream end", StreamEndParams{StreamID: "s"}, `{"lastSeq":0,"streamId":"s"}`},
		{"intercept", InterceptParams{Event: InputReceive, Seq: 1}, `{"event":"input.receive","payload":null,"seq":1,"timeoutMillis":0}`},
		{"event", EventParams{Event: SessionEnd}, `{"event":"session.end","payload":null}`},
		{"continue", InterceptResult{Decision: DecisionContinue}, `{"decision":"continue"}`},
		{"externalized replacement", InterceptResult{Decision: DecisionReplace, Replacement: json.RawMessage(`null`)}, `{"decision":"replace","replacement":null}`},
		{"catalog", ProviderCatalogResult{}, `{"providers":[]}`},
		{"resources", ResourcesChangedParams{}, `{"paths":[]}`},
		{"submit", UISubmitParams{SurfaceID: "f", SessionID: "s"}, `{"generation":0,"sessionId":"s","surfaceId":"f","values":{}}`},
		{"usage", ProviderUsage{}, `{"cacheHitTokens":0,"cacheMissTokens":0,"completionTokens":0,"promptTokens":0,"reasoningTokens":0,"totalTokens":0}`},
		{"tool call", ProviderToolCall{ID: "c", Name: "n"}, `{"arguments":"","id":"c","name":"n"}`},
		{"temperature 0 is kept", ProviderRequest{Temperature: ptr(0.0)}, `{"maxTokens":0,"messages":[],"temperature":0,"tools":[]}`},
		{"initialize result", InitializeResult{Name: "x", Version: "1", ProtocolVersion: "1"}, `{"name":"x","protocolVersion":"1","stateSchemaVersion":0,"version":"1"}`},
		{"session context", SessionContext{SessionID: "s", WorkspaceRoot: "/w"}, `{"generation":0,"sessionId":"s","workspaceRoot":"/w"}`},
		{"content page", ContentReadResult{ContentRef: "c", Encoding: EncodingUTF8, SHA256: goodSHA}, `{"contentRef":"c","dataBase64":"","encoding":"utf8","offset":0,"sha256":"` + goodSHA + `","totalBytes":0}`},
		{"content page with next", ContentReadResult{ContentRef: "c", Encoding: EncodingUTF8, SHA256: goodSHA, NextOffset: ptr(int64(262144))}, `{"contentRef":"c","dataBase64":"","encoding":"utf8","nextOffset":262144,"offset":0,"sha256":"` + goodSHA + `","totalBytes":0}`},
		{"empty context payload", ContextPreparePayload{Messages: []ProviderMessage{}}, `{}`},
		{"empty form", UIFormPayload{}, `{"fields":[]}`},
		{"progress 0 is kept", UIStatusPayload{Label: "x", Progress: ptr(0.0)}, `{"label":"x","progress":0}`},
		{"card row value", UIKeyValue{Key: "k"}, `{"key":"k","value":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// Every golden frame of PROTOCOL_DETAILS decodes, encodes and decodes back
// to the same value.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ method, raw string }{
		{MethodInitialize, goodInitialize},
		{MethodIntercept, goodIntercept},
		{MethodStreamOpen, goodStreamOpen},
		{MethodStreamChunk, `{"streamId":"es_3f9c","seq":1,"chunk":{"type":"reasoning","text":"hm","signature":"sig-1"}}`},
		{MethodStreamEnd, `{"streamId":"es_3f9c","lastSeq":1,"interrupted":true}`},
		{MethodUIPublish, `{"surfaceId":"status-1","sessionId":"sess-1","generation":7,"kind":"status","payload":{"label":"Indexing","detail":"3/6","severity":"warn","progress":0.5}}`},
		{MethodUIRequest, `{"surfaceId":"confirm-1","sessionId":"sess-1","generation":7,"kind":"confirm","payload":{"message":"Delete everything?","fields":[{"key":"value","label":"Delete everything?","kind":"confirm"}]}}`},
		{MethodContentRead, `{"contentRef":"content_9b1f0c2d3e4a5b6c7d8e9f01","offset":0}`},
		{MethodResourcesChanged, `{"paths":["skills/a","themes/b"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			first, err := DecodeParams(tt.method, json.RawMessage(tt.raw))
			if err != nil {
				t.Fatal(err)
			}
			enc, err := json.Marshal(first)
			if err != nil {
				t.Fatal(err)
			}
			second, err := DecodeParams(tt.method, enc)
			if err != nil {
				t.Fatalf("re-decoding %s: %v", enc, err)
			}
			if !reflect.DeepEqual(first, second) {
				t.Fatalf("round trip changed the value:\n%#v\n%#v", first, second)
			}
		})
	}
}
