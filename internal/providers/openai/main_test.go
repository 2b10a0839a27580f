package openai

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any test leaves a goroutine behind: every
// stream, timer and connection must be released by Close or cancellation.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
