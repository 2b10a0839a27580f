package wire

import "errors"

// Sentinels for errors.Is. Terminal and local errors wrap them with
// detail; errors from the peer are *protocol.Error values.
var (
	// ErrClosed is the terminal error after Close, and what calls still
	// pending at Close wrap.
	ErrClosed = errors.New("wire: connection closed")
	// ErrQueueFull is returned by TryNotify when its slots are taken or
	// the outbound queue has no room; the message names the limit.
	ErrQueueFull = errors.New("outbound notification queue is full")
	// ErrWriteStall is the terminal error when one physical write made no
	// progress for Options.StallTimeout.
	ErrWriteStall = errors.New("wire: write stalled")
	// ErrNotificationOverflow is the terminal error when the inbound
	// notification queue overflows under FailOnOverflow.
	ErrNotificationOverflow = errors.New("notification queue overflow")
)

// Fatal marks a gate error as connection-fatal: the request is answered
// with err, then the connection fails with err as its terminal error.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err: err}
}

type fatalError struct{ err error }

func (f *fatalError) Error() string { return f.err.Error() }
func (f *fatalError) Unwrap() error { return f.err }
