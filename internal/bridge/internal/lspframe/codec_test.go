package lspframe

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func TestCodecMarshal(t *testing.T) {
	t.Parallel()
	type rx struct {
		Warnings []string `json:"warnings"`
		Message  string   `json:"message,omitempty"`
		Count    int      `json:"count,omitempty"`
		Text     string   `json:"text"`
	}
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"rx type is encoding/json", rx{Text: "<a&b>"}, `{"warnings":null,"text":"<a&b>"}`},
		{"invalid UTF-8 is replaced", rx{Warnings: []string{"\xff"}}, `{"warnings":["\ufffd"],"text":""}`},
		{"raw passes through", json.RawMessage(" {\"a\": 1} "), ` {"a": 1} `},
		{"jsonrpc2 raw passes through", jsonrpc2.RawMessage(`[1]`), `[1]`},
		{"nil raw is null", json.RawMessage(nil), `null`},
		{"LSP union arm", &protocol.ServerCapabilities{TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: new(true)}}, `{"textDocumentSync":{"openClose":true}}`},
		{"LSPAny stays JSON", &protocol.ProgressParams{Token: protocol.String("t"), Value: protocol.LSPAny(`{"kind":"end"}`)}, `{"token":"t","value":{"kind":"end"}}`},
		{"LSP trace value", &protocol.SetTraceParams{Value: protocol.TraceValueMessages}, `{"value":"messages"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Codec{}.Marshal(tt.v)
			if err != nil || string(got) != tt.want {
				t.Fatalf("Marshal = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// TestCodecUnmarshalUnion: an LSP destination is decoded by
// go.lsp.dev/protocol, so a union is its arm: a change without a range is
// the whole text, not an insertion at 0:0.
func TestCodecUnmarshalUnion(t *testing.T) {
	t.Parallel()
	var p protocol.DidChangeTextDocumentParams
	body := `{"textDocument":{"uri":"untitled:x","version":2},"contentChanges":[{"text":"all"},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"in"}]}`
	if err := (Codec{}).Unmarshal([]byte(body), &p); err != nil {
		t.Fatal(err)
	}
	if len(p.ContentChanges) != 2 {
		t.Fatalf("changes = %#v", p.ContentChanges)
	}
	if _, ok := p.ContentChanges[0].(*protocol.TextDocumentContentChangeWholeDocument); !ok {
		t.Errorf("change 0 = %T, want the whole document", p.ContentChanges[0])
	}
	if _, ok := p.ContentChanges[1].(*protocol.TextDocumentContentChangePartial); !ok {
		t.Errorf("change 1 = %T, want a range", p.ContentChanges[1])
	}
	var raw json.RawMessage
	if err := (Codec{}).Unmarshal([]byte(`{"x":1}`), &raw); err != nil || string(raw) != `{"x":1}` {
		t.Fatalf("raw = %s, %v", raw, err)
	}
}
