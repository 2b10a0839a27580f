package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

func TestWireError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		err    error
		code   jsonrpc2.Code
		reason string
	}{
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), -32800, ""},
		{"unknown model", &providers.UnknownRefError{Ref: "a/b"}, jsonrpc2.InvalidParams, ""},
		{"invalid params", extproto.NewError(extproto.ReasonInvalidParams, "bad"), jsonrpc2.InvalidParams, "invalid_params"},
		{"plugin crashed", extproto.NewError(extproto.ReasonProviderInterrupted, "hello crashed"), -32000, "provider_interrupted"},
		{"provider failed", fmt.Errorf("wrapped: %w", extproto.NewError(extproto.ReasonProviderFailed, "no")), -32000, "provider_failed"},
		{"plain", fmt.Errorf("token=ghp_abcdefghijklmnopqrstuvwxyz0123456789"), jsonrpc2.InternalError, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := wireError(tt.err)
			if e.Code != tt.code {
				t.Errorf("code = %d, want %d", e.Code, tt.code)
			}
			var data errorData
			if e.Data != nil {
				_ = json.Unmarshal(e.Data, &data)
			}
			if string(data.Reason) != tt.reason {
				t.Errorf("reason = %q, want %q", data.Reason, tt.reason)
			}
			if tt.name == "plain" && e.Message == tt.err.Error() {
				t.Errorf("message not redacted: %s", e.Message)
			}
		})
	}
}
