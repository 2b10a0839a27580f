package extproto

import (
	"fmt"
	"testing"
)

// TestErrorNamesItsReason: the text of every structured error ends with
// its reason (once, however it was wrapped), and the wire keeps the bare
// message with the reason in data.
func TestErrorNamesItsReason(t *testing.T) {
	t.Parallel()
	timeout := Errorf(ReasonInterceptTimeout, "extension slow did not answer input.receive within 5s")
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"own message", timeout, "extension slow did not answer input.receive within 5s (intercept_timeout)"},
		{"table message", NewError(ReasonCapabilityNotDeclared, ""), "The extension used a capability its manifest did not declare. (capability_not_declared)"},
		{"wraps the same reason", Errorf(ReasonInterceptTimeout, "hook: %w", timeout), "hook: extension slow did not answer input.receive within 5s (intercept_timeout)"},
		{"wraps another reason", Errorf(ReasonProviderFailed, "open: %w", timeout), "open: extension slow did not answer input.receive within 5s (intercept_timeout) (provider_failed)"},
		{"unstructured", &Error{Code: CodeMethodNotFound, Message: "method not found: x"}, "method not found: x (code -32601)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("Error() = %q, want %q", got, tc.want)
			}
			if got := fmt.Sprint(tc.err); got != tc.want {
				t.Errorf("Sprint = %q, want %q", got, tc.want)
			}
			if w := tc.err.Wire(); w.Message != tc.err.Message {
				t.Errorf("wire message %q, want the bare message %q", w.Message, tc.err.Message)
			}
		})
	}
}
