package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/internal/lspframe"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// LSP error codes beyond JSON-RPC's own.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestCancelled     jsonrpc2.Code = -32800
)

// errorData is the `data` of an rx/ error: the extension protocol reason.
type errorData struct {
	Reason extproto.Reason `json:"reason"`
}

// wireError turns an error into the JSON-RPC error the editor sees
// (docs/EDITOR_PROTOCOL.md §7): LSP codes for bad params, unknown
// methods and internal failures, -32000 with data.reason for plugin and
// provider failures, -32800 for a cancelled request. Messages are redacted.
func wireError(err error) *jsonrpc2.Error {
	if err == nil {
		return nil
	}
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return &jsonrpc2.Error{Code: je.Code, Message: redact.String(je.Message), Data: je.Data}
	}
	if errors.Is(err, context.Canceled) {
		return jsonrpc2.NewError(codeRequestCancelled, "request cancelled")
	}
	var unknown *providers.UnknownRefError
	if errors.As(err, &unknown) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, redact.String(err.Error()))
	}
	var pe *extproto.Error
	if errors.As(err, &pe) && pe.Reason != "" {
		var code jsonrpc2.Code
		switch pe.Reason {
		case extproto.ReasonInvalidParams:
			code = jsonrpc2.InvalidParams
		case extproto.ReasonUnknownMethod:
			code = jsonrpc2.MethodNotFound
		case extproto.ReasonInternal:
			code = jsonrpc2.InternalError
		default:
			code = jsonrpc2.JSONRPCReservedErrorRangeEnd // -32000
		}
		data, _ := json.Marshal(errorData{Reason: pe.Reason})
		return &jsonrpc2.Error{Code: code, Message: redact.String(err.Error()), Data: data}
	}
	return jsonrpc2.NewError(jsonrpc2.InternalError, redact.String(err.Error()))
}

// invalidParams is a -32602 error.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}

// invalidRequest is a -32600 error.
func invalidRequest(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf(format, args...))
}

// decodeParams decodes LSP params leniently (clients add members), but a
// missing params object or a wrong type is -32602.
func decodeParams(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	if err := lspframe.Unmarshal(raw, v); err != nil {
		return invalidParams("invalid params: %v", err)
	}
	return nil
}

// domainError is err as a -32000 error, keeping the extension protocol
// reason in data when the cause has one.
func domainError(err error) *jsonrpc2.Error {
	e := wireError(err)
	e.Code = jsonrpc2.JSONRPCReservedErrorRangeEnd
	return e
}
