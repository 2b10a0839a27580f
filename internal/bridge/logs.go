package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/redact"
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
	plugin := ""
	add := func(a slog.Attr) bool {
		if a.Key == "plugin" {
			plugin = a.Value.String()
		}
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
	if h.s.warnings.admit(warnKey{plugin: plugin, msg: r.Message}, t) {
		h.s.notify("window/logMessage", &protocol.LogMessageParams{Type: t, Message: redact.String(b.String())})
	}
	return nil
}

func (h *editorLog) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &editorLog{s: h.s, next: h.next.WithAttrs(attrs), attrs: append(append([]slog.Attr(nil), h.attrs...), attrs...)}
}

func (h *editorLog) WithGroup(name string) slog.Handler {
	return &editorLog{s: h.s, next: h.next.WithGroup(name), attrs: h.attrs}
}

// warnInterval is how long repeats of one warning are counted rather
// than sent.
const warnInterval = 10 * time.Second

// warnThrottle keeps a flood of one warning (a sidecar refused as busy
// 20 000 times) from becoming a flood of window/logMessage: per plugin
// and message, the first is sent, repeats within the interval are
// counted, and one summary "(N more like this from <plugin>)" follows
// when the interval ends, or at shutdown. stderr still gets every record.
type warnThrottle struct {
	s        *Server
	now      func() time.Time
	interval time.Duration
	// after runs flush once d has passed and returns what cancels it
	// (time.AfterFunc); tests run flush themselves.
	after func(d time.Duration, flush func()) (stop func() bool)

	mu    sync.Mutex
	seen  map[warnKey]*warnCount
	timer func() bool // stops the scheduled flush; nil when none is
}

type warnKey struct{ plugin, msg string }

type warnCount struct {
	until time.Time // repeats before it are counted
	n     int
	typ   protocol.MessageType
}

func (w *warnThrottle) init(s *Server) {
	w.s, w.now, w.interval = s, time.Now, warnInterval
	w.after = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	w.seen = map[warnKey]*warnCount{}
}

// admit reports whether a warning is to be sent; a repeat is counted
// instead.
func (w *warnThrottle) admit(k warnKey, typ protocol.MessageType) bool {
	w.mu.Lock()
	now := w.now()
	if c := w.seen[k]; c != nil && now.Before(c.until) {
		c.n++
		if w.timer == nil {
			w.timer = w.after(c.until.Sub(now), w.flush)
		}
		w.mu.Unlock()
		return false
	}
	summaries := w.takeLocked(now, false) // k's own interval among them
	w.seen[k] = &warnCount{until: now.Add(w.interval), typ: typ}
	w.mu.Unlock()
	w.send(summaries)
	return true
}

// flush sends the summaries of every interval that has ended.
func (w *warnThrottle) flush() {
	w.mu.Lock()
	w.timer = nil
	now := w.now()
	summaries := w.takeLocked(now, false)
	var next time.Time
	for _, c := range w.seen {
		if c.n > 0 && (next.IsZero() || c.until.Before(next)) {
			next = c.until
		}
	}
	if !next.IsZero() {
		w.timer = w.after(next.Sub(now), w.flush)
	}
	w.mu.Unlock()
	w.send(summaries)
}

// flushAll sends every pending summary now (at shutdown: nothing counted
// is lost).
func (w *warnThrottle) flushAll() {
	w.mu.Lock()
	if w.timer != nil {
		w.timer()
		w.timer = nil
	}
	summaries := w.takeLocked(time.Time{}, true)
	w.mu.Unlock()
	w.send(summaries)
}

// takeLocked forgets the counts whose interval ended by now (all of
// them with all) and returns the summaries of those with repeats.
func (w *warnThrottle) takeLocked(now time.Time, all bool) []*protocol.LogMessageParams {
	var out []*protocol.LogMessageParams
	for k, c := range w.seen {
		if !all && now.Before(c.until) {
			continue
		}
		if c.n > 0 {
			from := ""
			if k.plugin != "" {
				from = " from " + k.plugin
			}
			out = append(out, &protocol.LogMessageParams{Type: c.typ, Message: redact.String(fmt.Sprintf("%s (%d more like this%s)", k.msg, c.n, from))})
		}
		delete(w.seen, k)
	}
	return out
}

func (w *warnThrottle) send(summaries []*protocol.LogMessageParams) {
	for _, m := range summaries {
		w.s.notify("window/logMessage", m)
	}
}
