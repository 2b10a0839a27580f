package sdk

import (
	"context"
	"encoding/json"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// handle is the wire Handler: it routes host→extension requests. Params
// are decoded exactly once, strictly, by the method's handler; wire has
// already validated the envelope and the gate the barrier.
func (s *server) handle(ctx context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case protocol.MethodIntercept:
		return s.intercept(ctx, raw)
	case protocol.MethodInitialize:
		return s.initialize(ctx, raw)
	case protocol.MethodShutdown:
		return s.shutdown(ctx, raw)
	case protocol.MethodProviderCatalog:
		if len(s.catalog) == 0 {
			return nil, unknownMethod(method)
		}
		if _, err := protocol.DecodeParams(method, raw); err != nil {
			return nil, err
		}
		return protocol.ProviderCatalogResult{Providers: s.catalog}, nil
	case protocol.MethodStreamOpen:
		return s.streamOpen(ctx, raw)
	case protocol.MethodStreamCancel:
		return s.streamCancel(raw)
	case protocol.MethodUIAction:
		return s.uiAction(ctx, raw)
	case protocol.MethodUISubmit:
		return s.uiSubmit(ctx, raw)
	}
	return nil, unknownMethod(method)
}

func unknownMethod(method string) error {
	return protocol.NewError(protocol.ReasonUnknownMethod, "method not found: "+clip(method))
}

// decode strictly decodes the params of method into its DTO.
func decode[T any](method string, raw json.RawMessage) (*T, error) {
	v, err := protocol.DecodeParams(method, raw)
	if err != nil {
		return nil, err
	}
	return v.(*T), nil
}

// notify is the wire NotifyHandler. It runs on wire's single ordered
// worker, so observers see events in arrival order without a goroutine
// per event.
func (s *server) notify(ctx context.Context, method string, raw json.RawMessage) {
	switch method {
	case protocol.MethodEvent:
		s.event(ctx, raw)
	case protocol.MethodResourcesChanged:
		if s.p.resources == nil {
			return
		}
		p, err := decode[protocol.ResourcesChangedParams](method, raw)
		if err != nil {
			s.log.Debug("sdk: notification dropped", "method", method, "err", err)
			return
		}
		s.p.resources(ctx, p.Paths)
	case protocol.MethodInitialized:
		// The gate opened the barrier when it saw this frame.
	default:
		s.log.Debug("sdk: unknown notification ignored", "method", clip(method))
	}
}
