package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// intercept answers extension/intercept. A point without a handler is
// answered continue without touching the payload, which is the hot path
// for plugins whose manifest intercepts more than they handle.
func (s *server) intercept(ctx context.Context, raw json.RawMessage) (any, error) {
	p, err := decode[extproto.InterceptParams](extproto.MethodIntercept, raw)
	if err != nil {
		return nil, err
	}
	fn := s.p.interceptFor(p.Event)
	if fn == nil {
		return continueResult, nil
	}
	timeout := time.Duration(p.TimeoutMillis) * time.Millisecond
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	payload, err := s.resolvePayload(ctx, p.Payload, p.Externalized)
	if err != nil {
		return nil, s.interceptErr(ctx, p.Event, timeout, err)
	}
	c := &Call{Point: p.Event, Seq: p.Seq, Timeout: timeout, Raw: payload}
	d, err := fn(ctx, c)
	if err != nil {
		return nil, s.interceptErr(ctx, p.Event, timeout, err)
	}
	return d.result(p.Event)
}

// interceptErr answers a failed handler. A failure caused by the call's
// deadline is intercept_timeout, as the host's own timer would report it;
// a *extproto.Error keeps its reason; anything else is internal, carrying
// the handler's message (the host redacts it before showing it).
func (s *server) interceptErr(ctx context.Context, point extproto.HookPoint, timeout time.Duration, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return extproto.Errorf(extproto.ReasonInterceptTimeout, "%s interceptor did not answer within %v", point, timeout)
	}
	var pe *extproto.Error
	if errors.As(err, &pe) {
		return err
	}
	s.log.Warn("sdk: interceptor failed", "point", point, "err", err)
	return extproto.Errorf(extproto.ReasonInternal, "%s interceptor: %w", point, err)
}

// event delivers extension/event. A frame that does not decode, or whose
// externalized payload cannot be read, is dropped: a notification has
// nobody to answer.
func (s *server) event(ctx context.Context, raw json.RawMessage) {
	p, err := decode[extproto.EventParams](extproto.MethodEvent, raw)
	if err != nil {
		s.log.Debug("sdk: event dropped", "err", err)
		return
	}
	fn := s.p.eventFor(p.Event)
	if fn == nil {
		return
	}
	payload, err := s.resolvePayload(ctx, p.Payload, p.Externalized)
	if err != nil {
		s.log.Warn("sdk: event dropped", "point", p.Event, "err", err)
		return
	}
	fn(ctx, &Call{Point: p.Event, Raw: payload})
}
