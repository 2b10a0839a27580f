package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// uiAction answers extension/ui/action. A failing action is not a call
// error: it is accepted:false with the failure as the message the user
// sees.
func (s *server) uiAction(ctx context.Context, raw json.RawMessage) (any, error) {
	if len(s.p.actions) == 0 {
		return nil, unknownMethod(extproto.MethodUIAction)
	}
	p, err := decode[extproto.UIActionParams](extproto.MethodUIAction, raw)
	if err != nil {
		return nil, err
	}
	for _, a := range s.p.actions {
		if a.decl.ActionID != p.ActionID {
			continue
		}
		msg, err := a.fn(ctx, p)
		if err != nil {
			return extproto.UIActionResult{Accepted: false, Message: err.Error()}, nil
		}
		return extproto.UIActionResult{Accepted: true, Message: msg}, nil
	}
	return extproto.UIActionResult{Accepted: false, Message: "unknown action " + clip(p.ActionID)}, nil
}

// uiSubmit answers extension/ui/submit.
func (s *server) uiSubmit(ctx context.Context, raw json.RawMessage) (any, error) {
	if s.p.submit == nil {
		return nil, unknownMethod(extproto.MethodUISubmit)
	}
	p, err := decode[extproto.UISubmitParams](extproto.MethodUISubmit, raw)
	if err != nil {
		return nil, err
	}
	if err := s.p.submit(ctx, p); err != nil {
		s.log.Warn("sdk: form submission refused", "surface", p.SurfaceID, "err", err)
		return extproto.UISubmitResult{Accepted: false}, nil
	}
	return extproto.UISubmitResult{Accepted: true}, nil
}
