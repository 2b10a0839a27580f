// Package exthost is the Reasonix extension host: it starts plugin
// sidecars in exec form, performs the v1 handshake, owns each sidecar's
// whole process tree for its whole life (on Linux through a supervisor
// that outlives the host), and assembles runtime generations (the started
// sidecars, their slot claims, the ordered interceptor chain, the provider
// catalog and the UI action list) that it swaps atomically on reload.
//
// It never talks to an editor and never renders UI: inbound UI traffic
// from sidecars is handed to a UIHost the caller provides. Every text a
// sidecar supplies that reaches a user, a log or an error goes through
// redact.
package exthost
