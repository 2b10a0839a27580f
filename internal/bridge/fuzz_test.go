package bridge

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// panicCounter is a slog handler counting the panics the server
// recovered (and so contained: the fuzz targets still fail on them).
type panicCounter struct {
	n    atomic.Int64
	last atomic.Value // string
}

func (h *panicCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h *panicCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "handler panicked" {
		h.n.Add(1)
		var b strings.Builder
		r.Attrs(func(a slog.Attr) bool {
			b.WriteString(a.Key + "=" + a.Value.String() + "\n")
			return true
		})
		h.last.Store(b.String())
	}
	return nil
}
func (h *panicCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *panicCounter) WithGroup(string) slog.Handler      { return h }

// servedMethods lists every method of the real handler tables except
// those that end the connection (shutdown, exit: after them nothing is
// served, by design), sorted.
func servedMethods() (methods []string, notification map[string]bool) {
	notification = map[string]bool{}
	for m := range requests {
		if m != "shutdown" {
			methods = append(methods, m)
		}
	}
	for m := range notifications {
		methods = append(methods, m)
		notification[m] = true
	}
	slices.Sort(methods)
	return methods, notification
}

// pickMethod maps any fuzzed name onto a served method: a served name is
// itself, any other is picked by its hash.
func pickMethod(methods []string, name string) string {
	if slices.Contains(methods, name) {
		return name
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return methods[h.Sum32()%uint32(len(methods))]
}

// FuzzLSPMethods sends every served method with fuzzed params through
// the real dispatch (framing, lifecycle, handler tables) of one
// initialized server with an empty home (no plugins): no panic may escape
// or even be recovered, every request must be answered, and the server
// must answer rx/actions afterwards.
func FuzzLSPMethods(f *testing.F) {
	methods, notification := servedMethods()
	for _, m := range methods {
		f.Add(m, []byte(`{}`))
		f.Add(m, []byte(`null`))
	}
	for _, seed := range []struct{ method, params string }{
		{"textDocument/didOpen", `{"textDocument":{"uri":"file:///a%zzb","languageId":"go","version":1,"text":"x"}}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":"untitled:Untitled-1","version":1,"text":"a\nb"}}`},
		{"textDocument/didOpen", `{"textDocument":{"uri":"vscode-remote://ssh-remote+x/home/a/m.go","version":1,"text":"😀\n"}}`},
		{"textDocument/didChange", `{"textDocument":{"uri":"untitled:Untitled-1","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":1},"end":{"line":1,"character":0}},"text":"z"}]}`},
		{"textDocument/didChange", `{"textDocument":{"uri":"file:///a%zzb","version":2},"contentChanges":[{"text":"full"}]}`},
		{"textDocument/didClose", `{"textDocument":{"uri":"file:///a%zzb"}}`},
		{"$/cancelRequest", `{"id":1}`},
		{"$/cancelRequest", `{"id":"x"}`},
		{"$/setTrace", `{"value":"verbose"}`},
		{"workspace/executeCommand", `{"command":"rx.reload"}`},
		{"workspace/executeCommand", `{"command":"rx.runAction","arguments":["/x:y",{"a":"b"}]}`},
		{"rx/session/new", `{"model":"plugin/x/y/z"}`},
		{"rx/session/prompt", `{"sessionId":"rx-1","prompt":"hi"}`},
		{"rx/session/load", `{"sessionId":"../../etc"}`},
		{"rx/session/delete", `{"sessionId":"rx-20240101-abc"}`},
		{"rx/lm/chat", `{"model":"a/b","messages":[{"role":"user","content":"x"}]}`},
		{"rx/ui/submit", `{"plugin":"p","surfaceId":"s","values":{"k":1}}`},
		{"rx/session/cancel", `{"sessionId":"rx-1"}`},
		{"initialize", `{"capabilities":{},"rootUri":"vscode-remote://x/y"}`},
		// White space around params goes through as it is.
		{"rx/models", " \n\t{ } "},
		{"$/cancelRequest", "\r\n{\"id\": 1}"},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	panics := &panicCounter{}
	s := newServer(Options{Home: f.TempDir(), Workspace: f.TempDir(), Version: "fuzz", Logger: slog.New(panics)})
	c := serveOnPipes(f, s)
	start(f, c)
	f.Fuzz(func(t *testing.T, name string, params []byte) {
		if !json.Valid(params) {
			return // the framing layer answers -32700 before any handler
		}
		method := pickMethod(methods, name)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		before := panics.n.Load()
		if notification[method] {
			if err := c.Notify(ctx, method, json.RawMessage(params)); err != nil {
				t.Fatalf("%s: %v", method, err)
			}
		} else if err := c.Call(ctx, method, json.RawMessage(params), nil); ctx.Err() != nil {
			t.Fatalf("%s %s was not answered: %v", method, params, err)
		}
		if err := c.Call(ctx, "rx/actions", nil, nil); err != nil {
			t.Fatalf("after %s %s the server no longer answers: %v", method, params, err)
		}
		if panics.n.Load() != before {
			t.Fatalf("%s %s panicked (contained, but a bug):\n%v", method, params, panics.last.Load())
		}
	})
}

// FuzzInitialize runs initialize with fuzzed params on a fresh server
// without --workspace, so every root URI the editor may send is parsed:
// no panic, an answer either way, and a server that then serves (or
// refuses with -32002 after a failed initialize).
func FuzzInitialize(f *testing.F) {
	for _, seed := range []string{
		`{"capabilities":{}}`,
		`{"capabilities":{},"rootUri":"vscode-remote://ssh-remote+x/home/a"}`,
		`{"capabilities":{},"workspaceFolders":[{"uri":"vscode-vfs://github/o/r","name":"r"}]}`,
		`{"capabilities":{},"rootUri":"untitled:Untitled-1"}`,
		`{"capabilities":{},"rootUri":"file:///a%zzb"}`,
		`{"capabilities":{},"rootUri":"file://host/share"}`,
		`{"capabilities":{},"rootUri":"file:rel","rootPath":"/"}`,
		`{"capabilities":{},"rootUri":"C:\\x"}`,
		`{"capabilities":{},"workspaceFolders":[{"uri":"","name":""}],"rootUri":"file:///"}`,
		`{"capabilities":{"experimental":{"rxBridge":{"version":1,"ui":{"select":true}}}},"trace":"verbose"}`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	home := f.TempDir()
	f.Fuzz(func(t *testing.T, params []byte) {
		if !json.Valid(params) {
			return
		}
		panics := &panicCounter{}
		s := newServer(Options{Home: home, Version: "fuzz", Logger: slog.New(panics)})
		c := serveOnPipes(t, s)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		initErr := c.Call(ctx, "initialize", json.RawMessage(params), nil)
		if ctx.Err() != nil {
			t.Fatalf("initialize %s was not answered: %v", params, initErr)
		}
		err := c.Call(ctx, "rx/actions", nil, nil)
		switch {
		case initErr == nil && err != nil:
			t.Fatalf("after initialize %s: %v", params, err)
		case initErr != nil && rpcCode(err) != codeServerNotInitialized:
			t.Fatalf("after a failed initialize %s (%v): rx/actions = %v, want -32002", params, initErr, err)
		}
		if panics.n.Load() != 0 {
			t.Fatalf("initialize %s panicked (contained, but a bug):\n%v", params, panics.last.Load())
		}
	})
}
