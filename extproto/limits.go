package extproto

import "time"

// Identity of the contract.
const (
	ProtocolID      = "reasonix.extension.v1"
	ProtocolVersion = "1"
	ProtocolMajor   = 1
)

// Frozen size limits (schema "limits").
const (
	// FrameBytes caps one NDJSON frame in either direction, newline included.
	FrameBytes = 8388608
	// ExternalizeFieldBytes is the size above which an externalizable field
	// moves into the content store.
	ExternalizeFieldBytes = 65536
	// ContentRefChunkBytes caps the decoded data of one host/content/read page.
	ContentRefChunkBytes = 262144
	// ContentRefObjectBytes caps one content-store object.
	ContentRefObjectBytes = 8388608
)

// Timeouts and bounds the reference host uses (PROTOCOL_DETAILS Appendix B).
const (
	HandshakeTimeout        = 30 * time.Second
	GenerationStartBudget   = 30 * time.Second
	GenerationParallelStart = 4
	ShutdownTimeout         = 5 * time.Second
	StdinEOFGrace           = 750 * time.Millisecond
	WriteStallTimeout       = 10 * time.Second
	InterceptTimeoutShort   = 5 * time.Second
	InterceptTimeoutLong    = 30 * time.Second
	InterceptTimeoutCeiling = 60 * time.Second
	EventQueueSlots         = 16
	StderrTailBytes         = 16 << 10
	CatalogFetchTimeout     = 10 * time.Second
	StreamCancelTimeout     = 2 * time.Second
)
