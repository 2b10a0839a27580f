package lspclient

import (
	"errors"

	"go.lsp.dev/jsonrpc2"
)

// JSON-RPC error codes a server answers with, for callers that check
// them without importing go.lsp.dev (which only bridge may).
const (
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
)

// Code is the JSON-RPC error code of a server's error answer to Call, or
// 0 when err is not one.
func Code(err error) int {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return int(je.Code)
	}
	return 0
}
