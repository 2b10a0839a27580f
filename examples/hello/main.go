// Command hello is an example rx-bridge plugin sidecar built on
// sdk. It rewrites input that starts with /hello, offers a
// "greet" UI action (/hello:greet) that asks for a greeting style and your
// name and answers with a notification, and publishes a status line and a
// card (with the greet action) when a session starts. See plugin.go for the behaviour and
// reasonix-plugin.json for what it is allowed to do.
package main

import "github.com/rx-bridge/rx-bridge/sdk"

func main() { sdk.Main(newPlugin(), sdk.Options{}) }
