// Package wire is the strict NDJSON JSON-RPC 2.0 connection of Reasonix
// Extension Protocol v1, used by both ends: the host (exthost) talking to a
// sidecar's stdin/stdout, and the sidecar SDK (sdk) talking back.
//
// It owns framing (one JSON object per line, at most protocol.FrameBytes
// bytes including the newline, enforced while reading), envelope
// validation in the order of PROTOCOL_DETAILS §1.2 (integer ids only,
// params an object, unknown envelope members tolerated), request/response
// matching by id, one serialised writer with a bounded queue and a
// write-stall watchdog, bounded inbound concurrency, ordered notification
// delivery, and the pre-dispatch gate the host uses for "nothing before
// extension/initialized".
//
// It never decodes params or results: handlers receive raw params and Call
// returns the raw result, and the caller decodes them strictly against the
// method's DTO (extproto). It knows no method names, starts no
// processes and keeps no protocol state beyond ids and queues; what a gate
// admits is the caller's decision.
package wire
