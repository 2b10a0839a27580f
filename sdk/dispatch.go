package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// handle is the wire Handler: it routes host→extension requests. Params
// are decoded exactly once, strictly, by the method's handler; wire has
// already validated the envelope and the gate the barrier.
func (s *server) handle(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case extproto.MethodIntercept:
		return s.intercept(ctx, raw)
	case extproto.MethodInitialize:
		return s.initialize(ctx, raw)
	case extproto.MethodShutdown:
		return s.shutdown(ctx, raw)
	case extproto.MethodProviderCatalog:
		if len(s.catalog) == 0 {
			return nil, unknownMethod(method)
		}
		if _, err := extproto.DecodeParams(method, raw); err != nil {
			return nil, err
		}
		return extproto.ProviderCatalogResult{Providers: s.catalog}, nil
	case extproto.MethodStreamOpen:
		return s.streamOpen(ctx, raw)
	case extproto.MethodStreamCancel:
		return s.streamCancel(raw)
	case extproto.MethodUIAction:
		return s.uiAction(ctx, raw)
	case extproto.MethodUISubmit:
		return s.uiSubmit(ctx, raw)
	}
	return nil, unknownMethod(method)
}

func unknownMethod(method string) error {
	return extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+clip(method))
}

// decode strictly decodes the params of method into its DTO.
func decode[T any](method string, raw json.RawMessage) (*T, error) {
	v, err := extproto.DecodeParams(method, raw)
	if err != nil {
		return nil, err
	}
	return v.(*T), nil
}

// notify is the wire NotifyHandler. It runs on wire's single ordered
// worker, so observers see events in arrival order without a goroutine
// per event.
// skip drops, on the read loop, the notifications no callback of the
// plugin would see: events of points it does not observe (every
// intercept is followed by one) and resource changes nobody watches.
func (s *server) skip(method string, raw json.RawMessage) bool {
	switch method {
	case extproto.MethodEvent:
		if len(s.p.events) == 0 {
			return true
		}
		if _, all := s.p.events[AnyPoint]; all {
			return false
		}
		var head struct {
			Event extproto.HookPoint `json:"event"`
		}
		if json.Unmarshal(raw, &head) != nil {
			return false // let the strict decode report it
		}
		return s.p.eventFor(head.Event) == nil
	case extproto.MethodResourcesChanged:
		return s.p.resources == nil
	}
	return false
}

func (s *server) notify(ctx context.Context, method string, raw json.RawMessage) {
	switch method {
	case extproto.MethodEvent:
		s.event(ctx, raw)
	case extproto.MethodResourcesChanged:
		if s.p.resources == nil {
			return
		}
		p, err := decode[extproto.ResourcesChangedParams](method, raw)
		if err != nil {
			s.log.Debug("sdk: notification dropped", "method", method, "err", err)
			return
		}
		s.p.resources(ctx, p.Paths)
	case extproto.MethodInitialized:
		// The gate opened the barrier when it saw this frame.
	default:
		s.log.Debug("sdk: unknown notification ignored", "method", clip(method))
	}
}
