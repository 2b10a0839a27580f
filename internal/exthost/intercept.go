package exthost

import (
	"context"
	"encoding/json"
	"time"

	"github.com/rx-bridge/rx-bridge/contentref"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// intercept sends one extension/intercept to s with a fresh seq, the
// payload externalized when over 64 KiB, and decodes the ruling strictly.
// Past budget it fails with an error matching context.DeadlineExceeded.
// The payload's content refs live until the call ends (plus the store's
// grace), so the sidecar can page them while it decides.
func (s *Sidecar) intercept(ctx context.Context, point extproto.HookPoint, raw json.RawMessage, budget time.Duration) (*extproto.InterceptResult, error) {
	lease := s.lease(raw)
	defer lease.Release()
	payload, ext, err := contentref.Externalize(lease, "/payload", raw)
	if err != nil {
		return nil, err
	}
	params := extproto.InterceptParams{Event: point, Seq: s.NextSeq(), Payload: payload, Externalized: ext, TimeoutMillis: budget.Milliseconds()}
	res, err := s.callWithin(ctx, budget, extproto.MethodIntercept, params)
	if err != nil {
		return nil, err
	}
	v, err := extproto.DecodeResult(extproto.MethodIntercept, res)
	if err != nil {
		return nil, err
	}
	r := v.(*extproto.InterceptResult)
	if r.Decision == extproto.DecisionReplace {
		// Resolve while the lease still holds the payload's refs: a
		// sidecar may answer "use the bytes you sent me".
		if r.Replacement, err = contentref.Resolve(s.content, "/replacement", r.Replacement, r.Externalized); err != nil {
			return nil, err
		}
		r.Externalized = nil
	} else if len(r.Externalized) > 0 {
		return nil, extproto.Errorf(extproto.ReasonProtocolError, "extension %s externalized a replacement with decision %q", s.Plugin.ID, r.Decision)
	}
	return r, nil
}

// event sends one best-effort extension/event; it never blocks. The
// payload's refs get the store's grace to be read, since an observation
// has no call to scope them to.
func (s *Sidecar) event(point extproto.HookPoint, raw json.RawMessage) error {
	lease := s.lease(raw)
	defer lease.Release()
	payload, ext, err := contentref.Externalize(lease, "/payload", raw)
	if err != nil {
		return err
	}
	params := extproto.EventParams{Event: point, Payload: payload, Externalized: ext}
	if err := s.usable(); err != nil {
		return err
	}
	if lease != nil {
		// Its content refs expire a grace after the lease ends: out now.
		return s.conn.TryNotify(extproto.MethodEvent, params)
	}
	// Rides with the sidecar's next frame, within wire.DefaultDeferWindow:
	// after a walk, each member is woken once, not twice (issue 20).
	return s.conn.DeferNotify(extproto.MethodEvent, params)
}

// lease scopes the content refs of a payload raw: nil (which holds and
// releases nothing) when raw is small enough to travel inline, so the
// common intercept allocates no lease.
func (s *Sidecar) lease(raw json.RawMessage) *contentref.Lease {
	if len(raw) <= extproto.ExternalizeFieldBytes {
		return nil
	}
	return s.content.Lease()
}

// readContent serves host/content/read from the sidecar's own store only,
// the page's base64 encoded straight into the answer's frame.
func (s *Sidecar) readContent(p *extproto.ContentReadParams) (*extproto.ContentPage, error) {
	return s.content.Page(p)
}
