package editorui

import (
	"context"
	"reflect"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// surfaceKey is one surface in one session: a surface shown in session A
// and then in B is new to B.
type surfaceKey struct{ plugin, id, session string }

// shown is the latest rendering of one surface.
type shown struct {
	gen int64
	v   any // Status, Notification, Card or Form
}

type pendingSurface struct {
	plugin string
	s      any
}

// Publish serves one host/ui/publish from plugin: the stale gate, the
// strict payload decode, redaction, then the surface is shown — natively
// or through its text fallback — replacing the plugin's earlier surface of
// the same id. A surface of a generation still starting is shown once that
// generation is bound.
func (h *Hub) Publish(ctx context.Context, plugin string, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
	v := h.judge(p.SessionID, p.Generation)
	if v == stale {
		return &extproto.UIPublishResult{Accepted: false}, nil
	}
	payload, err := extproto.DecodeSurfacePayload(p.Kind, p.Payload)
	if err != nil {
		return nil, err
	}
	o := Origin{Plugin: plugin, SurfaceID: p.SurfaceID, SessionID: p.SessionID, Generation: p.Generation, Session: SessionFor(ctx)}
	s := h.surface(o, payload)
	if v == upcoming {
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			return &extproto.UIPublishResult{Accepted: false}, nil
		}
		h.pending[p.Generation] = append(h.pending[p.Generation], pendingSurface{plugin, s})
		h.mu.Unlock()
		return &extproto.UIPublishResult{Accepted: true}, nil
	}
	if !h.show(ctx, plugin, s) {
		return &extproto.UIPublishResult{Accepted: false}, nil
	}
	return &extproto.UIPublishResult{Accepted: true}, nil
}

// surface builds the redacted surface of a decoded payload.
func (h *Hub) surface(o Origin, payload extproto.SurfacePayload) any {
	r := h.opts.Redact
	switch p := payload.(type) {
	case *extproto.UIStatusPayload:
		return Status{Origin: o, Label: r(p.Label), Detail: r(p.Detail), Severity: severity(p.Severity), Progress: p.Progress}
	case *extproto.UINotificationPayload:
		return Notification{Origin: o, Title: r(p.Title), Body: r(p.Body), Severity: severity(p.Severity)}
	case *extproto.UICardPayload:
		c := Card{Origin: o, Title: r(p.Title), Markdown: r(p.Markdown), Text: r(p.Text), Progress: p.Progress}
		for _, f := range p.Fields {
			c.Fields = append(c.Fields, KeyValue{Key: r(f.Key), Value: r(f.Value)})
		}
		for _, a := range p.Actions {
			c.Actions = append(c.Actions, CardAction{ActionID: a.ActionID, Label: r(a.Label), Name: extproto.Action{Plugin: o.Plugin, ActionID: a.ActionID}.Name()})
		}
		return c
	case *extproto.UIFormPayload:
		return Form{Origin: o, Title: r(p.Title), Message: r(p.Message), Fields: h.fields(p.Fields)}
	}
	return nil
}

func severity(s extproto.UISeverity) Severity {
	switch s {
	case extproto.SeverityWarn:
		return SeverityWarn
	case extproto.SeverityError:
		return SeverityError
	}
	return SeverityInfo
}

// show records s as its surface's latest rendering and renders it; false
// when the generation went stale meanwhile. A re-publish identical to
// what a text fallback already showed is not shown again.
func (h *Hub) show(ctx context.Context, plugin string, s any) bool {
	o := originOf(s)
	key := surfaceKey{plugin, o.SurfaceID, o.Session}
	h.mu.Lock()
	if h.closed || o.Generation != h.gen {
		h.mu.Unlock()
		return false
	}
	if c, ok := s.(Card); ok {
		s = h.declaredOnly(c)
	}
	prev, had := h.surfaces[key]
	h.surfaces[key] = shown{gen: o.Generation, v: s}
	h.mu.Unlock()
	same := had && reflect.DeepEqual(prev.v, s)
	if err := h.render(ctx, s, same); err != nil {
		h.warn("editorui: showing " + plugin + "'s surface " + o.SurfaceID + ": " + err.Error())
	}
	return true
}

// declaredOnly keeps the card buttons that name an action its plugin
// declared in the bound generation: nothing else may run. The caller holds
// h.mu.
func (h *Hub) declaredOnly(c Card) Card {
	kept := c.Actions[:0:0]
	for _, a := range c.Actions {
		if extproto.ValidActionID(a.ActionID) && h.declared(a.Name) {
			kept = append(kept, a)
		}
	}
	c.Actions = kept
	return c
}

func (h *Hub) render(ctx context.Context, s any, same bool) error {
	ed := h.opts.Editor
	switch s := s.(type) {
	case Status:
		if ed.Supports(KindStatus) {
			return ed.Status(ctx, s)
		}
		if same {
			return nil
		}
		err := ed.LogMessage(ctx, SeverityInfo, statusText(s))
		if s.Severity == SeverityError && err == nil {
			err = ed.ShowMessage(ctx, SeverityError, statusText(s))
		}
		return err
	case Notification:
		if ed.Supports(KindNotification) {
			return ed.Notify(ctx, s)
		}
		return ed.ShowMessage(ctx, s.Severity, notificationText(s))
	case Card:
		if ed.Supports(KindCard) {
			return ed.Card(ctx, s)
		}
		if same {
			return nil
		}
		return ed.ShowMessage(ctx, SeverityInfo, cardText(s))
	case Form:
		if ed.Supports(KindForm) {
			return ed.ShowForm(ctx, s)
		}
		h.askForm(s)
	}
	return nil
}

func originOf(s any) Origin {
	switch s := s.(type) {
	case Status:
		return s.Origin
	case Notification:
		return s.Origin
	case Card:
		return s.Origin
	case Form:
		return s.Origin
	}
	return Origin{}
}
