package wire

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Handler serves one inbound request. params is the raw params object (nil
// when the request had none) and is owned by the handler. The result is
// encoded with encoding/json; a json.RawMessage is sent as is (after a
// validity check) and nil is JSON null. A *extproto.Error is sent with its
// code, message and data; any other error becomes the frozen internal
// error and is only logged. ctx is cancelled when the connection ends and
// carries the connection (ConnFromContext).
type Handler func(ctx context.Context, method string, params json.RawMessage) (any, error)

// NotifyHandler receives inbound notifications, one at a time, in arrival
// order. It must return promptly: the ordered queue behind it is bounded.
type NotifyHandler func(ctx context.Context, method string, params json.RawMessage)

// Gate runs on the read loop for every inbound request and notification
// before it is dispatched, so its decisions observe wire arrival order
// (responses are not gated). A nil error admits the frame. Otherwise a
// request is answered with the error (converted like a handler error, so
// return a *extproto.Error such as protocol_error) and a notification is
// dropped. Wrap the error with Fatal to fail the connection right after
// that answer is written; the connection's Err is then the wrapped error.
// A gate must not block.
type Gate func(method string, notification bool) error

// OverflowPolicy says what a full inbound notification queue does.
type OverflowPolicy uint8

const (
	// FailOnOverflow fails the connection with ErrNotificationOverflow
	// (the host: a lost stream chunk would corrupt a stream).
	FailOnOverflow OverflowPolicy = iota
	// DropOnOverflow drops the notification and logs it (the SDK).
	DropOnOverflow
)

// UnmatchedResponse is an inbound response that matched no pending call.
type UnmatchedResponse struct {
	// ID is the response's id; zero when Null.
	ID int64
	// Null is set for "id":null: the peer reports an error it could not
	// attribute to a request (typically its parse error for our frame).
	Null bool
	// Late is set when ID is one this connection issued: the call was
	// cancelled or timed out before the answer came. Otherwise the peer
	// answered an id we never used.
	Late bool
	// Err is the response's error, nil for a result.
	Err *extproto.Error
}

// Defaults, from PROTOCOL_DETAILS §1.3 and Appendix B (host side).
const (
	DefaultMaxHandlers   = 64
	DefaultNotifyQueue   = 256
	DefaultOutQueue      = 256
	DefaultEventSlots    = extproto.EventQueueSlots
	DefaultStallTimeout  = extproto.WriteStallTimeout
	DefaultDrainTimeout  = 100 * time.Millisecond
	DefaultDeferWindow   = time.Millisecond
	DefaultMaxFrameBytes = extproto.FrameBytes
	// SDKMaxHandlers is the sidecar SDK's handler bound.
	SDKMaxHandlers = 32
)

// Options configure a Conn. The zero value is the host's configuration;
// the SDK sets MaxHandlers to SDKMaxHandlers and NotifyOverflow to
// DropOnOverflow.
type Options struct {
	// Handler serves inbound requests. Nil answers every request with
	// -32601 "method not found: <m>" and data unknown_method.
	Handler Handler
	// NotifyHandler receives inbound notifications. Nil ignores them.
	NotifyHandler NotifyHandler
	// Skip, if set, runs on the reading goroutine for every admitted
	// notification before it is queued for NotifyHandler; true drops it
	// silently, sparing the notification worker a wake-up for a frame it
	// would ignore. params is valid only during the call.
	Skip func(method string, params json.RawMessage) bool
	// Gate, if set, vets inbound requests and notifications first.
	Gate Gate

	// MaxHandlers bounds concurrently running request handlers; a request
	// beyond it is answered -32099 "server busy" at once. Default 64.
	MaxHandlers int
	// NotifyQueue bounds notifications waiting for NotifyHandler.
	// Default 256.
	NotifyQueue int
	// NotifyOverflow is the policy when NotifyQueue is full.
	NotifyOverflow OverflowPolicy
	// OutQueue bounds outbound frames waiting for the writer; Call and
	// Notify wait for room (bounded by the stall watchdog). Default 256.
	OutQueue int
	// EventSlots bounds TryNotify frames queued or being written.
	// Default extproto.EventQueueSlots (16).
	EventSlots int
	// DeferWindow is the longest a DeferNotify frame waits for another
	// frame to share its write. Default DefaultDeferWindow; negative
	// makes DeferNotify write at once, as TryNotify.
	DeferWindow time.Duration
	// StallTimeout fails the connection when one physical write makes no
	// progress for this long. Default extproto.WriteStallTimeout (10 s);
	// negative disables the watchdog.
	StallTimeout time.Duration
	// DrainTimeout is how long Close (and a fatal gate verdict) lets the
	// writer flush frames already queued. Default 100 ms.
	DrainTimeout time.Duration
	// CallerReads lets a caller waiting for its answer read the
	// connection itself while no one else reads (no goroutine hand-off
	// per call), and is how long the reading role then waits for the next
	// caller before a reader goroutine takes it back: with no call in
	// flight, unsolicited frames are read within this delay. Zero (the
	// default) keeps a reader goroutine reading at all times. It needs r
	// to be an *os.File that supports read deadlines (a pipe from
	// os.Pipe on Unix): a caller whose context ends while it reads is
	// interrupted by one. Otherwise it is ignored.
	CallerReads time.Duration
	// MaxFrameBytes is the frame limit, newline included, both ways.
	// Default extproto.FrameBytes; only tests should change it.
	MaxFrameBytes int

	// OnUnmatched, if set, is told about responses that matched no
	// pending call. It runs on the read loop and must not block.
	OnUnmatched func(UnmatchedResponse)
	// Logger receives diagnostics (rejected frames, dropped
	// notifications, handler panics). Nil discards them.
	Logger *slog.Logger
	// Trace, if set, sees every frame: each inbound line before it is
	// validated, each outbound frame (newline included) as its write
	// begins; a frame withdrawn before its write is not seen. frame is
	// valid only during the call; Trace runs on the reading or writing
	// goroutine and must not block.
	Trace func(inbound bool, frame []byte)
}

func (o Options) withDefaults() Options {
	if o.MaxHandlers <= 0 {
		o.MaxHandlers = DefaultMaxHandlers
	}
	if o.NotifyQueue <= 0 {
		o.NotifyQueue = DefaultNotifyQueue
	}
	if o.OutQueue <= 0 {
		o.OutQueue = DefaultOutQueue
	}
	if o.EventSlots <= 0 {
		o.EventSlots = DefaultEventSlots
	}
	if o.StallTimeout == 0 {
		o.StallTimeout = DefaultStallTimeout
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.DeferWindow == 0 {
		o.DeferWindow = DefaultDeferWindow
	}
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = DefaultMaxFrameBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
