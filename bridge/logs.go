package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/exthost/redact"
)

// editorLog is the slog handler of the bridge and the extension host:
// every record goes to stderr's handler, and warnings and errors also go
// to the editor as window/logMessage, redacted.
type editorLog struct {
	s     *Server
	next  slog.Handler
	attrs []slog.Attr
}

func (h *editorLog) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn || h.next.Enabled(ctx, l)
}

func (h *editorLog) Handle(ctx context.Context, r slog.Record) error {
	if h.next.Enabled(ctx, r.Level) {
		_ = h.next.Handle(ctx, r)
	}
	if r.Level < slog.LevelWarn {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	add := func(a slog.Attr) bool {
		if a.Key != "audit" {
			fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		}
		return true
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(add)
	t := protocol.MessageTypeWarning
	if r.Level >= slog.LevelError {
		t = protocol.MessageTypeError
	}
	h.s.notify("window/logMessage", &protocol.LogMessageParams{Type: t, Message: redact.String(b.String())})
	return nil
}

func (h *editorLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &editorLog{s: h.s, next: h.next.WithAttrs(attrs), attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *editorLog) WithGroup(name string) slog.Handler {
	return &editorLog{s: h.s, next: h.next.WithGroup(name), attrs: h.attrs}
}
