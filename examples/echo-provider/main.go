// Command echo-provider is an example rx-bridge plugin sidecar built on
// sdk: a streaming model provider with two models,
// plugin/echo-provider/echo/small and plugin/echo-provider/echo/large,
// that echo the last user message back word by word, call a tool when
// asked to ("call <tool> <json-args>"), and quote a tool's result. See
// README.md for the convention and plugin.go for the behaviour.
//
// ECHO_PROVIDER_DELAY (a Go duration, default 25ms) paces the words so a
// stream is visible in an editor. ECHO_PROVIDER_CALL_ID, when set, is the
// id of every tool call (providers that number the calls of each response
// reuse "call-1" every round); by default ids are unique within a
// conversation.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rx-bridge/rx-bridge/sdk"
)

func main() {
	delay := 25 * time.Millisecond
	if v := os.Getenv("ECHO_PROVIDER_DELAY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			fmt.Fprintf(os.Stderr, "echo-provider: ECHO_PROVIDER_DELAY=%q is not a duration\n", v)
			os.Exit(2)
		}
		delay = d
	}
	sdk.Main(newPlugin(delay, os.Getenv("ECHO_PROVIDER_CALL_ID")), sdk.Options{})
}
