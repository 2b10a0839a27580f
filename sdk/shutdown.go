package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// shutdown answers extension/shutdown (PROTOCOL_DETAILS §2.5): run the
// plugin's hook bounded by timeoutMillis (unbounded when 0), answer
// accepted, and end Serve with nil once the answer is queued; teardown
// then drains it onto the wire before closing the transport.
func (s *server) shutdown(ctx context.Context, raw json.RawMessage) (any, error) {
	p, err := decode[extproto.ShutdownParams](extproto.MethodShutdown, raw)
	if err != nil {
		return nil, err
	}
	s.phase.Store(phaseStopping)
	if s.p.shutdown != nil {
		s.runShutdownHook(ctx, time.Duration(p.TimeoutMillis)*time.Millisecond)
	}
	return afterAnswer{extproto.ShutdownResult{Accepted: true}, func() { s.stop(nil) }}, nil
}

// runShutdownHook waits for the hook or its deadline, whichever comes
// first. A hook that outlives its deadline keeps running until Serve's
// bounded teardown gives up on it.
func (s *server) runShutdownHook(ctx context.Context, timeout time.Duration) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	done := make(chan error, 1)
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		done <- s.safeHook(ctx)
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			s.log.Warn("sdk: shutdown hook failed", "err", err)
		}
	case <-ctx.Done():
		s.log.Warn("sdk: shutdown hook did not return within the host's timeout", "timeout", timeout)
	}
}

func (s *server) safeHook(ctx context.Context) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errors.New("shutdown hook panicked")
			s.log.Error("sdk: shutdown hook panicked", "panic", v)
		}
	}()
	return s.p.shutdown(ctx)
}
