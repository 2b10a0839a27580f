package sdktest

import (
	"encoding/json"
	"fmt"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
)

// Intercept asks the plugin to rule on payload at point, with the point's
// default budget. Like a real host it externalizes a payload over 64 KiB
// into the content store.
func (h *Host) Intercept(point protocol.HookPoint, payload any) (*protocol.InterceptResult, error) {
	p, err := h.interceptParams(point, payload)
	if err != nil {
		return nil, err
	}
	return h.InterceptWith(p)
}

func (h *Host) interceptParams(point protocol.HookPoint, payload any) (protocol.InterceptParams, error) {
	raw, ext, err := h.payload(payload)
	if err != nil {
		return protocol.InterceptParams{}, err
	}
	return protocol.InterceptParams{
		Event:         point,
		Seq:           h.seq.Add(1),
		Payload:       raw,
		Externalized:  ext,
		TimeoutMillis: point.DefaultTimeout().Milliseconds(),
	}, nil
}

// InterceptWith sends params as they are.
func (h *Host) InterceptWith(p protocol.InterceptParams) (*protocol.InterceptResult, error) {
	return Call[protocol.InterceptResult](h, protocol.MethodIntercept, p)
}

// Event sends an observation; it does not wait for the observer.
func (h *Host) Event(point protocol.HookPoint, payload any) error {
	raw, ext, err := h.payload(payload)
	if err != nil {
		return err
	}
	return h.Conn.Notify(h.Ctx(), protocol.MethodEvent, protocol.EventParams{Event: point, Payload: raw, Externalized: ext})
}

func (h *Host) payload(v any) (json.RawMessage, []protocol.ExternalizedField, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, nil, fmt.Errorf("sdktest: payload: %w", err)
		}
	}
	if len(raw) <= protocol.ExternalizeFieldBytes {
		return raw, nil, nil
	}
	return json.RawMessage("null"), []protocol.ExternalizedField{h.PutContent(raw)}, nil
}

// Action invokes a declared UI action in the configured session.
func (h *Host) Action(actionID string, args map[string]string) (*protocol.UIActionResult, error) {
	return Call[protocol.UIActionResult](h, protocol.MethodUIAction, protocol.UIActionParams{
		ActionID: actionID, Args: args, SessionID: h.opts.Session.SessionID, Generation: h.opts.Session.Generation,
	})
}

// Submit delivers a form submission for surfaceID.
func (h *Host) Submit(surfaceID string, values map[string]json.RawMessage) (*protocol.UISubmitResult, error) {
	return Call[protocol.UISubmitResult](h, protocol.MethodUISubmit, protocol.UISubmitParams{
		SurfaceID: surfaceID, Values: values, SessionID: h.opts.Session.SessionID, Generation: h.opts.Session.Generation,
	})
}

// Catalog fetches the plugin's provider catalog.
func (h *Host) Catalog() ([]protocol.ProviderDescriptor, error) {
	res, err := Call[protocol.ProviderCatalogResult](h, protocol.MethodProviderCatalog, protocol.ProviderCatalogParams{})
	if err != nil {
		return nil, err
	}
	return res.Providers, nil
}
