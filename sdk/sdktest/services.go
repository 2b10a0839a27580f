package sdktest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The host's side of the plugin's calls: UI publishes and prompts, and
// content reads from an in-memory store paged like the reference host's.

func (h *Host) serveHost(_ context.Context, method string, raw json.RawMessage) (any, error) {
	switch method {
	case extproto.MethodUIPublish, extproto.MethodUIRequest, extproto.MethodContentRead:
	default:
		return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
	}
	params, err := extproto.DecodeParams(method, raw)
	if err != nil {
		return nil, err
	}
	switch p := params.(type) {
	case *extproto.UIPublishParams:
		return h.publish(p)
	case *extproto.UIRequestParams:
		return h.request(p)
	case *extproto.ContentReadParams:
		return h.read(p)
	}
	return nil, fmt.Errorf("sdktest: unexpected params %T", params)
}

func (h *Host) current(sessionID string, generation int64) bool {
	return sessionID == h.opts.Session.SessionID && generation == h.opts.Session.Generation
}

func (h *Host) publish(p *extproto.UIPublishParams) (any, error) {
	if _, err := extproto.DecodeSurfacePayload(p.Kind, p.Payload); err != nil {
		return nil, err
	}
	if !h.current(p.SessionID, p.Generation) {
		return extproto.UIPublishResult{Accepted: false}, nil
	}
	h.mu.Lock()
	h.published = append(h.published, *p)
	h.mu.Unlock()
	return extproto.UIPublishResult{Accepted: true}, nil
}

func (h *Host) request(p *extproto.UIRequestParams) (any, error) {
	if _, err := extproto.DecodeRequestPayload(p.Kind, p.Payload); err != nil {
		return nil, err
	}
	if !h.current(p.SessionID, p.Generation) {
		return extproto.UIRequestResult{Cancelled: true}, nil
	}
	h.mu.Lock()
	h.requests = append(h.requests, *p)
	h.mu.Unlock()
	if h.opts.Answer == nil {
		return extproto.UIRequestResult{Cancelled: true}, nil
	}
	return h.opts.Answer(p), nil
}

// Published returns the surfaces the plugin published, in order.
func (h *Host) Published() []extproto.UIPublishParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.published)
}

// Requests returns the prompts the plugin asked, in order.
func (h *Host) Requests() []extproto.UIRequestParams {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.requests)
}

// PutContent stores data in the host's content store and returns its
// descriptor for an externalized payload.
func (h *Host) PutContent(data []byte) extproto.ExternalizedField {
	sum := sha256.Sum256(data)
	h.mu.Lock()
	h.nextRef++
	ref := fmt.Sprintf("content_%024x", h.nextRef)
	h.content[ref] = slices.Clone(data)
	h.mu.Unlock()
	return extproto.ExternalizedField{JSONPointer: "/payload", ContentRef: ref, TotalBytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}
}

func (h *Host) read(p *extproto.ContentReadParams) (any, error) {
	h.mu.Lock()
	data, ok := h.content[p.ContentRef]
	h.mu.Unlock()
	if !ok || p.Offset > int64(len(data)) {
		return nil, extproto.NewError(extproto.ReasonContentRefExpired, "")
	}
	end := min(p.Offset+extproto.ContentRefChunkBytes, int64(len(data)))
	sum := sha256.Sum256(data)
	page := &extproto.ContentReadResult{
		ContentRef: p.ContentRef,
		Offset:     p.Offset,
		DataBase64: base64.StdEncoding.EncodeToString(data[p.Offset:end]),
		TotalBytes: int64(len(data)),
		SHA256:     hex.EncodeToString(sum[:]),
		Encoding:   extproto.EncodingUTF8,
	}
	if end < int64(len(data)) {
		page.NextOffset = &end
	}
	if h.opts.Page != nil {
		h.opts.Page(page)
	}
	return page, nil
}
