package agent

import (
	"os"
	"testing"
)

// The test binary doubles as a plugin sidecar (plugin_test.go) and as the
// process killed mid-turn (crash_test.go), chosen by envChild.
const envChild = "RX_AGENT_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(envChild) {
	case "plugin":
		servePlugin()
		return
	case "turn":
		os.Exit(childTurn())
	}
	os.Exit(m.Run())
}
