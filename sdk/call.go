package sdk

import (
	"context"
	"encoding/json"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Call is one intercept or event as a handler sees it. Raw is the
// payload's JSON, with externalized content already read and verified.
type Call struct {
	Point extproto.HookPoint
	// Seq is the host's per-connection intercept counter; 0 for events.
	Seq int64
	// Timeout is the host's budget for an intercept (also armed as the
	// handler context's deadline); 0 for events and unbounded calls.
	Timeout time.Duration
	Raw     json.RawMessage

	payload extproto.Payload
	err     error
	decoded bool
}

// Payload strictly decodes Raw as the point's payload DTO (a pointer such
// as *extproto.InputReceivePayload). It decodes once and caches the
// result; a failure is invalid_params.
func (c *Call) Payload() (extproto.Payload, error) {
	if !c.decoded {
		c.payload, c.err = extproto.DecodePayload(c.Point, c.Raw)
		c.decoded = true
	}
	return c.payload, c.err
}

// payloadPtr constrains P to the pointer type of a payload DTO, so the
// typed registrations can name the point from the type alone.
type payloadPtr[T any] interface {
	*T
	extproto.Payload
}

// Intercept registers fn as p's interceptor at the point whose payload
// type fn takes, e.g. func(ctx, *extproto.InputReceivePayload). The
// payload is strictly decoded first; a payload that does not decode is
// answered invalid_params without calling fn.
func Intercept[T any, P payloadPtr[T]](p *Plugin, fn func(ctx context.Context, payload P) (Decision, error)) {
	p.OnIntercept(pointOf[T, P](), func(ctx context.Context, c *Call) (Decision, error) {
		pl, err := c.Payload()
		if err != nil {
			return Decision{}, err
		}
		return fn(ctx, pl.(P))
	})
}

// Observe registers fn as p's observer of the point whose payload type fn
// takes. Payloads that do not decode are dropped (and logged).
func Observe[T any, P payloadPtr[T]](p *Plugin, fn func(ctx context.Context, payload P)) {
	p.OnEvent(pointOf[T, P](), func(ctx context.Context, c *Call) {
		pl, err := c.Payload()
		if err != nil {
			logFrom(ctx).Warn("sdk: event payload dropped", "point", c.Point, "err", err)
			return
		}
		fn(ctx, pl.(P))
	})
}

func pointOf[T any, P payloadPtr[T]]() extproto.HookPoint {
	var zero T
	return P(&zero).Point()
}
