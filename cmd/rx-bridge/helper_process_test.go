package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// helperEnv marks a test binary started to act as the rx-bridge program.
const helperEnv = "RX_BRIDGE_TEST_HELPER"

// TestHelperProcess is not a test: when helperEnv is set it runs the real
// dispatcher on the arguments after "--" and exits with its status.
func TestHelperProcess(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	os.Exit(run(args, os.Stdout, os.Stderr))
}

// rxBridgeCommand is `rx-bridge <args>` as a child process: this test
// binary re-executed as the program.
func rxBridgeCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestHelperProcess$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	return cmd
}

// TestMain drops the race runtime's one-second sleep at exit
// (GORACE atexit_sleep_ms) for every process this race-enabled binary
// starts: each sidecar's supervisor is this binary, and the tests that
// check what is left when the bridge exits would measure that sleep.
func TestMain(m *testing.M) {
	_ = os.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	// The tests compare English texts: a developer's zh_CN LANG must not
	// change them (a test that wants zh-CN sets RX_BRIDGE_LANG itself).
	if os.Getenv(helperEnv) == "" {
		_ = os.Setenv("RX_BRIDGE_LANG", "en")
		locale.Set(locale.English)
	} else {
		// Re-executed as the program, it takes its language from the
		// environment as the program does (a test binary otherwise reads
		// RX_BRIDGE_LANG only).
		locale.Set(locale.FromEnv(os.Getenv))
	}
	os.Exit(m.Run())
}
