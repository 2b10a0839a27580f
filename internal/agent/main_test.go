package agent

import (
	"os"
	"strings"
	"testing"
)

// The test binary doubles as a plugin sidecar (plugin_test.go), as the
// process killed mid-turn (crash_test.go) and as a hook
// (hookpoints_test.go), chosen by envChild.
const envChild = "RX_AGENT_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(envChild) {
	case "plugin":
		servePlugin()
		return
	case "turn":
		os.Exit(childTurn())
	case "hook":
		os.Exit(hookMain())
	case "mcp":
		serveMCP()
		return
	case "mcp-silent":
		// An MCP server that never answers initialize: it stays
		// starting until its host gives up or closes (mcpwait_test.go).
		select {}
	}
	// Every sidecar's supervisor is this binary: without its race-runtime
	// sleep at exit (one second) each plugin shutdown would wait for it.
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	os.Exit(m.Run())
}
