// Package extproto is the frozen Reasonix Extension Protocol v1
// (reasonix.extension.v1) in Go: every wire DTO, enum, method, limit and
// error reason of the canonical schema, the strict decoder that enforces
// them, the 17 hook points with their payload DTOs, the replacement slot
// names, and the structured UI payloads.
//
// The Go types are the single source of the contract. Their `json` and
// `rx` tags drive both the strict decoder (Decode, DecodeParams,
// DecodeResult, DecodeResultOwned, DecodePayload, DecodeSurfacePayload,
// DecodeRequestPayload) and the schema generator, whose output schema.json is committed and is
// tested to be semantically equal to the canonical reference document
// (SchemaSHA256 reproduces its published hash). The encoders of the bulky
// values (MarshalPayload, ContentPage, the AppendJSON methods) write
// exactly what encoding/json would, without reflection.
//
// It owns the contract and nothing else: it never does I/O, never starts a
// process and imports no other package of this module. Every reason string,
// JSON-RPC code and limit appears here exactly once; other packages refer to
// the constants. Redacting sidecar text is redact's job.
package extproto
