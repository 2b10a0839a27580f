package sdktest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// testLogger sends the plugin's diagnostics to the test log, and drops
// them once the test has finished (testing panics on a late Log).
func testLogger(t testing.TB) *slog.Logger {
	st := &tbState{t: t}
	t.Cleanup(func() {
		st.mu.Lock()
		st.done = true
		st.mu.Unlock()
	})
	return slog.New(&tbHandler{st: st})
}

type tbState struct {
	t    testing.TB
	mu   sync.Mutex
	done bool
}

type tbHandler struct {
	st    *tbState
	attrs []slog.Attr
}

func (h *tbHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *tbHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	write := func(a slog.Attr) bool {
		b.WriteString(" " + a.Key + "=" + a.Value.String())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if !h.st.done {
		h.st.t.Log(b.String())
	}
	return nil
}

func (h *tbHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &tbHandler{st: h.st, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h *tbHandler) WithGroup(string) slog.Handler { return h }
