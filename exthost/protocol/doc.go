// Package protocol is the frozen Reasonix Extension Protocol v1
// (reasonix.extension.v1) in Go: every wire DTO, enum, method, limit and
// error reason of the canonical schema, the strict decoder that enforces
// them, the 17 hook points with their payload DTOs, the replacement slot
// names, the structured UI payloads, and the credential redaction pass that
// every sidecar-supplied text goes through.
//
// It owns the contract and nothing else: it never does I/O, never starts a
// process and imports no other package of this module. Every reason string,
// JSON-RPC code and limit appears here exactly once; other packages refer to
// the constants.
package protocol
