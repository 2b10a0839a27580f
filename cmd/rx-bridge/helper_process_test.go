package main

import (
	"os"
	"os/exec"
	"testing"
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
