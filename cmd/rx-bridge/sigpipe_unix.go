//go:build unix

package main

import (
	"os"
	"os/signal"
	"syscall"
)

// survivePipes keeps a long-running front end alive when its client
// closes a pipe it writes to: an editor quitting closes the bridge's
// stderr before its stdin, and Go's default for a write to a closed fd 1
// or 2 is death by SIGPIPE, which would skip the SessionEnd hooks and
// the plugins' graceful stop. Once SIGPIPE is notified the write fails
// with EPIPE instead (a diagnostic is dropped; a protocol write ends the
// connection, which shuts down in order). A handled signal is reset to
// its default in every child, so tools, hooks and sidecars still get
// the usual SIGPIPE.
func survivePipes() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}
