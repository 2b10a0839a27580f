package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// uiAction answers extension/ui/action. A failing action is not a call
// error: it is accepted:false with the failure as the message the user
// sees.
func (s *server) uiAction(ctx context.Context, raw json.RawMessage) (any, error) {
	if len(s.p.actions) == 0 {
		return nil, unknownMethod(protocol.MethodUIAction)
	}
	p, err := decode[protocol.UIActionParams](protocol.MethodUIAction, raw)
	if err != nil {
		return nil, err
	}
	for _, a := range s.p.actions {
		if a.decl.ActionID != p.ActionID {
			continue
		}
		msg, err := a.fn(ctx, p)
		if err != nil {
			return protocol.UIActionResult{Accepted: false, Message: err.Error()}, nil
		}
		return protocol.UIActionResult{Accepted: true, Message: msg}, nil
	}
	return protocol.UIActionResult{Accepted: false, Message: "unknown action " + clip(p.ActionID)}, nil
}

// uiSubmit answers extension/ui/submit.
func (s *server) uiSubmit(ctx context.Context, raw json.RawMessage) (any, error) {
	if s.p.submit == nil {
		return nil, unknownMethod(protocol.MethodUISubmit)
	}
	p, err := decode[protocol.UISubmitParams](protocol.MethodUISubmit, raw)
	if err != nil {
		return nil, err
	}
	if err := s.p.submit(ctx, p); err != nil {
		s.log.Warn("sdk: form submission refused", "surface", p.SurfaceID, "err", err)
		return protocol.UISubmitResult{Accepted: false}, nil
	}
	return protocol.UISubmitResult{Accepted: true}, nil
}
