package sdktest

import (
	"encoding/json"
	"fmt"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Intercept asks the plugin to rule on payload at point, with the point's
// default budget. Like a real host it externalizes a payload over 64 KiB
// into the content store.
func (h *Host) Intercept(point extproto.HookPoint, payload any) (*extproto.InterceptResult, error) {
	p, err := h.interceptParams(point, payload)
	if err != nil {
		return nil, err
	}
	return h.InterceptWith(p)
}

func (h *Host) interceptParams(point extproto.HookPoint, payload any) (extproto.InterceptParams, error) {
	raw, ext, err := h.payload(payload)
	if err != nil {
		return extproto.InterceptParams{}, err
	}
	return extproto.InterceptParams{
		Event:         point,
		Seq:           h.seq.Add(1),
		Payload:       raw,
		Externalized:  ext,
		TimeoutMillis: point.DefaultTimeout().Milliseconds(),
	}, nil
}

// InterceptWith sends params as they are.
func (h *Host) InterceptWith(p extproto.InterceptParams) (*extproto.InterceptResult, error) {
	return Call[extproto.InterceptResult](h, extproto.MethodIntercept, p)
}

// Event sends an observation; it does not wait for the observer.
func (h *Host) Event(point extproto.HookPoint, payload any) error {
	raw, ext, err := h.payload(payload)
	if err != nil {
		return err
	}
	return h.Conn.Notify(h.Ctx(), extproto.MethodEvent, extproto.EventParams{Event: point, Payload: raw, Externalized: ext})
}

func (h *Host) payload(v any) (json.RawMessage, []extproto.ExternalizedField, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, nil, fmt.Errorf("sdktest: payload: %w", err)
		}
	}
	if len(raw) <= extproto.ExternalizeFieldBytes {
		return raw, nil, nil
	}
	return json.RawMessage("null"), []extproto.ExternalizedField{h.PutContent(raw)}, nil
}

// Action invokes a declared UI action in the configured session.
func (h *Host) Action(actionID string, args map[string]string) (*extproto.UIActionResult, error) {
	return Call[extproto.UIActionResult](h, extproto.MethodUIAction, extproto.UIActionParams{
		ActionID: actionID, Args: args, SessionID: h.opts.Session.SessionID, Generation: h.opts.Session.Generation,
	})
}

// Submit delivers a form submission for surfaceID.
func (h *Host) Submit(surfaceID string, values map[string]json.RawMessage) (*extproto.UISubmitResult, error) {
	return Call[extproto.UISubmitResult](h, extproto.MethodUISubmit, extproto.UISubmitParams{
		SurfaceID: surfaceID, Values: values, SessionID: h.opts.Session.SessionID, Generation: h.opts.Session.Generation,
	})
}

// Catalog fetches the plugin's provider catalog.
func (h *Host) Catalog() ([]extproto.ProviderDescriptor, error) {
	res, err := Call[extproto.ProviderCatalogResult](h, extproto.MethodProviderCatalog, extproto.ProviderCatalogParams{})
	if err != nil {
		return nil, err
	}
	return res.Providers, nil
}
