package acp

import (
	"bytes"
	"io"
	"sync"
)

// frameWriter is stdout: the SDK writes one whole frame per Write. It
// runs a hook once after the response frame it waits for is written, so
// a notification can follow a result (available_commands_update after
// session/new, as the reference orders them).
type frameWriter struct {
	w io.Writer

	mu    sync.Mutex
	hooks []afterHook
}

type afterHook struct {
	// match is a byte string only the awaited response contains.
	match []byte
	run   func()
}

// after runs f (on its own goroutine) once a response frame containing
// match has been written.
func (f *frameWriter) after(match string, run func()) {
	f.mu.Lock()
	f.hooks = append(f.hooks, afterHook{match: []byte(match), run: run})
	f.mu.Unlock()
}

func (f *frameWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil || !bytes.Contains(p, []byte(`"result"`)) || bytes.Contains(p, []byte(`"method"`)) {
		return n, err
	}
	f.mu.Lock()
	var due []afterHook
	keep := f.hooks[:0]
	for _, h := range f.hooks {
		if bytes.Contains(p, h.match) {
			due = append(due, h)
		} else {
			keep = append(keep, h)
		}
	}
	f.hooks = keep
	f.mu.Unlock()
	for _, h := range due {
		go h.run()
	}
	return n, err
}
