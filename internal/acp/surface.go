package acp

import (
	"context"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/editorui"
)

// The reference's structured surface: the update kind a client that
// negotiated it gets beside the text, its _meta namespace and schema
// version.
const (
	updateExtensionSurface = "_reasonix.io/extension_surface"
	metaNamespace          = "reasonix.io"
	surfaceSchemaVersion   = 1
)

// agentMeta is initialize's agentCapabilities._meta: the extension
// surface is offered (the reference's shape).
func agentMeta() map[string]any {
	return map[string]any{metaNamespace: map[string]any{
		"extensionSurface": map[string]any{"supported": true, "schemaVersion": surfaceSchemaVersion},
	}}
}

// surfaceSupported reads the client's negotiation:
// clientCapabilities._meta["reasonix.io"].extensionSurface.supported is
// true; any other shape is off (the reference's rule).
func surfaceSupported(caps acpsdk.ClientCapabilities) bool {
	ns, _ := caps.Meta[metaNamespace].(map[string]any)
	es, _ := ns["extensionSurface"].(map[string]any)
	on, _ := es["supported"].(bool)
	return on
}

// surfaceDTO is the reference's extensionSurface: where a surface comes
// from, its kind and the kind's payload.
type surfaceDTO struct {
	PluginID     string           `json:"pluginId"`
	SurfaceID    string           `json:"surfaceId"`
	SessionID    string           `json:"sessionId,omitempty"`
	Generation   int64            `json:"generation,omitempty"`
	Kind         editorui.Kind    `json:"kind"`
	Status       *statusDTO       `json:"status,omitempty"`
	Card         *cardDTO         `json:"card,omitempty"`
	Form         *formDTO         `json:"form,omitempty"`
	Notification *notificationDTO `json:"notification,omitempty"`
}

type statusDTO struct {
	Label    string            `json:"label"`
	Detail   string            `json:"detail,omitempty"`
	Severity editorui.Severity `json:"severity,omitempty"`
	Progress *float64          `json:"progress,omitempty"`
}

type notificationDTO struct {
	Title    string            `json:"title"`
	Body     string            `json:"body,omitempty"`
	Severity editorui.Severity `json:"severity,omitempty"`
}

type cardDTO struct {
	Title    string                `json:"title,omitempty"`
	Markdown string                `json:"markdown,omitempty"`
	Text     string                `json:"text,omitempty"`
	Fields   []editorui.KeyValue   `json:"fields,omitempty"`
	Progress *float64              `json:"progress,omitempty"`
	Actions  []editorui.CardAction `json:"actions,omitempty"`
}

type formDTO struct {
	Title   string           `json:"title,omitempty"`
	Message string           `json:"message,omitempty"`
	Fields  []editorui.Field `json:"fields"`
}

// surfaceUpdate is the session/update params of dto in session id.
func surfaceUpdate(id string, dto surfaceDTO) map[string]any {
	return map[string]any{"sessionId": id, "update": map[string]any{
		"sessionUpdate": updateExtensionSurface,
		"_meta":         map[string]any{metaNamespace: map[string]any{"extensionSurface": dto}},
	}}
}

// showSurface shows a published surface in the sessions it goes to
// (server.showIn: the one the engine attributed it to, every open one
// for a session-less surface), held while a session is opening. With no
// session to show it in, it is logged.
func (u *clientUI) showSurface(o editorui.Origin, dto surfaceDTO, sev editorui.Severity, text string) {
	show := func() {
		ids := u.s.showIn(o)
		if len(ids) == 0 {
			u.s.log.Info(text)
		}
		for _, id := range ids {
			u.showSurfaceIn(id, o, dto, sev, text)
		}
	}
	if u.s.hold(show) {
		return
	}
	show()
}

// showSurfaceIn shows a surface in session id: the structured update
// first when the client negotiated it, then, for every client, text
// (sev's prefix) unless it is what this surface last showed in that
// session (a status re-published with only its progress changed).
func (u *clientUI) showSurfaceIn(id string, o editorui.Origin, dto surfaceDTO, sev editorui.Severity, text string) {
	dto.PluginID, dto.SurfaceID, dto.SessionID, dto.Generation = o.Plugin, o.SurfaceID, id, o.Generation
	if surfaceSupported(u.s.clientCaps()) {
		if err := u.s.out.notify("session/update", surfaceUpdate(id, dto)); err != nil {
			u.s.log.Debug("extension surface not sent", "session", id, "err", err)
		}
	}
	key := id + "\x00" + o.Plugin + "\x00" + o.SurfaceID
	text = chunkPrefix(sev) + text
	u.s.mu.Lock()
	same := u.s.shownText[key] == text
	u.s.shownText[key] = text
	u.s.mu.Unlock()
	if !same {
		u.s.send(id, acpsdk.UpdateAgentMessageText(text))
	}
}

// Status: "[<plugin>] <label>[: <detail>]".
func (u *clientUI) Status(_ context.Context, st editorui.Status) error {
	text := "[" + st.Plugin + "] " + st.Label
	if st.Detail != "" {
		text += ": " + st.Detail
	}
	u.showSurface(st.Origin, surfaceDTO{Kind: editorui.KindStatus, Status: &statusDTO{Label: st.Label, Detail: st.Detail, Severity: st.Severity, Progress: st.Progress}}, st.Severity, text)
	return nil
}

// Notify: the title, the body under it.
func (u *clientUI) Notify(_ context.Context, n editorui.Notification) error {
	u.showSurface(n.Origin, surfaceDTO{Kind: editorui.KindNotification, Notification: &notificationDTO{Title: n.Title, Body: n.Body, Severity: n.Severity}}, n.Severity, lines(n.Title, n.Body))
	return nil
}

// Card: the title, the body (markdown over text), a "key: value" line per
// field. Its buttons are in the structured update only.
func (u *clientUI) Card(_ context.Context, c editorui.Card) error {
	parts := []string{c.Title, orDefault(c.Markdown, c.Text)}
	for _, f := range c.Fields {
		parts = append(parts, f.Key+": "+f.Value)
	}
	u.showSurface(c.Origin, surfaceDTO{Kind: editorui.KindCard, Card: &cardDTO{Title: c.Title, Markdown: c.Markdown, Text: c.Text, Fields: c.Fields, Progress: c.Progress, Actions: c.Actions}}, editorui.SeverityInfo, lines(parts...))
	return nil
}

// ShowForm announces a published form (title and message), as the
// reference flattens it; a client with the structured surface gets its
// fields too.
func (u *clientUI) ShowForm(_ context.Context, f editorui.Form) error {
	fields := f.Fields
	if fields == nil {
		fields = []editorui.Field{}
	}
	u.showSurface(f.Origin, surfaceDTO{Kind: editorui.KindForm, Form: &formDTO{Title: f.Title, Message: f.Message, Fields: fields}}, editorui.SeverityInfo, lines(f.Title, f.Message))
	return nil
}

// lines joins the non-blank parts, one per line.
func lines(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}
