package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

// TestDemo runs the whole demo against this test binary acting as serve:
// it must pass and print every step.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the examples and starts processes")
	}
	t.Parallel()
	var out strings.Builder
	err := demo(context.Background(), &out, demoOptions{serve: func(args ...string) (*exec.Cmd, error) {
		return rxBridgeCommand(append([]string{"serve"}, args...)...), nil
	}})
	if err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"[1/6]", "[6/6]",
		"rxBridge v1",
		"action /hello:greet",
		`quick-pick "How should I greet you?" [friendly formal pirate] -> pirate`,
		`input box "Your name" -> Ada`,
		`result: accepted=true message="Ahoy, Ada!"`,
		`permission: may the agent run "Edit NOTES.md" (edit)? [Allow once / Allow edits to NOTES.md for this session / Deny] -> Allow once`,
		`NOTES.md on disk: "Written by the agent through the bridge.\n"`,
		"agent: The tool returned:",
		"turn ended: end_turn",
		"exit status 0, plugin processes left: 0",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}
