package extproto

import (
	"fmt"
	"testing"
)

// Issue 30 item 11: editors showed "… (provider_interrupted)"; the text
// for people leaves the reason out, the error keeps it.
func TestPlainErrorText(t *testing.T) {
	t.Parallel()
	e := Errorf(ReasonProviderInterrupted, "extension sidecar hello crashed: connection closed (%s)", "signal: killed")
	if got, want := e.Error(), "extension sidecar hello crashed: connection closed (signal: killed) (provider_interrupted)"; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	if got, want := Plain(e), "extension sidecar hello crashed: connection closed (signal: killed)"; got != want {
		t.Errorf("Plain = %q, want %q", got, want)
	}
	if ReasonOf(e) != ReasonProviderInterrupted {
		t.Error("the reason is lost")
	}
	wrapped := fmt.Errorf("turn failed: %w", Errorf(ReasonInterceptTimeout, "extension x did not answer"))
	if got, want := Plain(wrapped), "turn failed: extension x did not answer"; got != want {
		t.Errorf("Plain(wrapped) = %q, want %q", got, want)
	}
	if got := PlainText("a (not_a_reason) stays"); got != "a (not_a_reason) stays" {
		t.Errorf("PlainText changed %q", got)
	}
	if Plain(nil) != "" {
		t.Error("Plain(nil)")
	}
}
