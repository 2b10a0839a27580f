// Package contentref is the content-reference half of the extension
// protocol (SPEC §5, PROTOCOL_DETAILS §7): the host's per-connection
// content store, outbound externalization of fields over 64 KiB, the
// host/content/read pager, the host's verification of a replacement that
// names a ref in its own store, and the reader side a sidecar uses to page
// and verify an externalized payload.
//
// It owns ref minting, call-scoped lifetimes (a Lease per call plus a short
// grace), the store's memory bounds and every size and hash check of §7. It
// never does I/O, never starts goroutines beyond the store's one sweep
// timer, and never decodes the payloads it carries: callers strictly decode
// the bytes it returns. It imports only extproto.
package contentref
