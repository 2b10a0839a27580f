// Package sdk is the sidecar side of Reasonix Extension Protocol v1 for Go
// plugin authors: a plugin registers callbacks on a Plugin and calls Serve
// (or Main), and the SDK speaks the protocol on stdin/stdout the way
// Reasonix's own SDK does, so the plugin runs under rx-bridge and under
// Reasonix alike.
//
// It owns the handshake (protocol id and version checks, the answer built
// from the registrations), the barrier (nothing but initialize and
// shutdown is served before extension/initialized, and the plugin's own
// host calls fail with ErrNotReady until then), intercept and event
// dispatch with typed payloads, the intercept deadline (answered
// intercept_timeout), content references (payloads over 64 KiB are read
// back page by page and verified before a handler sees them), UI actions,
// submissions, publishes and prompts, provider catalogs and streams
// (numbered chunks, one end, cancellation), and a bounded shutdown. It
// never redacts the plugin's own data, never starts processes and imports
// only the standard library and extproto and extproto/wire.
//
// A minimal interceptor plugin:
//
//	package main
//
//	import (
//		"context"
//		"strings"
//
//		"github.com/rx-bridge/rx-bridge/extproto"
//		"github.com/rx-bridge/rx-bridge/sdk"
//	)
//
//	func main() {
//		p := &sdk.Plugin{Name: "shout", Version: "0.1.0"}
//		sdk.Intercept(p, func(ctx context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
//			rest, ok := strings.CutPrefix(in.Text, "!")
//			if !ok || strings.TrimSpace(rest) == "" {
//				return sdk.Continue(), nil
//			}
//			return sdk.Replace(&extproto.InputReceivePayload{Text: strings.ToUpper(rest)}), nil
//		})
//		sdk.Main(p, sdk.Options{})
//	}
//
// Its manifest lists input.receive in runtime.intercepts. A point the
// manifest intercepts but the plugin does not handle is answered continue.
//
// Concurrency: requests run concurrently, at most 32 at a time (beyond
// that the host gets "server busy"); events run one at a time in arrival
// order. A panicking callback fails only its own call. Every callback's
// context carries the Host (HostFrom) and ends when the connection does,
// an intercept's also at the host's deadline and a stream's on cancel.
//
// docs/PLUGIN_AUTHORS.md is the guide: manifest, install, hook points,
// UI, providers, content refs, timeouts, and testing with sdktest.
package sdk
