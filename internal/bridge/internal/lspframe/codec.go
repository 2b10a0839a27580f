package lspframe

import (
	"bytes"
	"encoding/json"
	"reflect"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is the jsonrpc2.Codec of the bridge's connections. A value of a
// go.lsp.dev/protocol type goes through that package's union-aware codec
// (its unions and LSPAny fields are not encoding/json values); every
// other value, the bridge's own rx/ types included, through
// encoding/json, so the rx/ wire form is encoding/json's (nil slices are
// null, omitempty as Go has it) and invalid UTF-8 becomes U+FFFD instead
// of failing the message. Raw messages pass through as they are; HTML
// characters are not escaped.
type Codec struct{}

var _ jsonrpc2.Codec = Codec{}

// Marshal encodes v.
func (Codec) Marshal(v any) ([]byte, error) {
	switch raw := v.(type) {
	case json.RawMessage:
		return rawOrNull(raw), nil
	case jsonrpc2.RawMessage:
		return rawOrNull(raw), nil
	}
	if isLSP(v) {
		return protocol.Marshal(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Unmarshal decodes data into v.
func (Codec) Unmarshal(data []byte, v any) error { return Unmarshal(data, v) }

// Unmarshal decodes data into v the way Codec does: a go.lsp.dev/protocol
// destination with that package's decoder, any other with encoding/json.
func Unmarshal(data []byte, v any) error {
	switch raw := v.(type) {
	case *json.RawMessage:
		*raw = append((*raw)[:0], data...)
		return nil
	case *jsonrpc2.RawMessage:
		*raw = append((*raw)[:0], data...)
		return nil
	}
	if isLSP(v) {
		return protocol.Unmarshal(data, v)
	}
	return json.Unmarshal(data, v)
}

func rawOrNull(raw []byte) []byte {
	if raw == nil {
		return []byte("null")
	}
	return raw
}

const lspPkg = "go.lsp.dev/protocol"

// isLSP reports whether v is a value of, or a pointer to, a named type of
// go.lsp.dev/protocol.
func isLSP(v any) bool {
	t := reflect.TypeOf(v)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == lspPkg
}
