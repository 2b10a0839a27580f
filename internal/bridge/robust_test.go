package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

func rpcCode(err error) jsonrpc2.Code {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

// logMessages are the texts of the window/logMessage notifications c got.
func logMessages(c *lspclient.Client) []string {
	var out []string
	for _, m := range c.Messages("window/logMessage") {
		var p protocol.LogMessageParams
		_ = json.Unmarshal(m.Params, &p)
		out = append(out, p.Message)
	}
	return out
}

// TestHandlerPanicIsContained: a panic in a request handler, a
// notification handler or initialize is logged with its method, a
// request is answered InternalError, and the connection goes on. It
// swaps entries of the real handler tables, so it must not run in
// parallel.
func TestHandlerPanicIsContained(t *testing.T) {
	boom := func(*Server, context.Context, []byte) (any, error) { panic("boom in a request") }
	init := requests["initialize"]
	requests["initialize"] = boom
	requests["rx/test/panic"] = boom
	notifications["rx/test/panic"] = func(*Server, []byte) { panic("boom in a notification") }
	restored := false
	restore := func() {
		if !restored {
			requests["initialize"] = init
			delete(requests, "rx/test/panic")
			delete(notifications, "rx/test/panic")
			restored = true
		}
	}
	defer restore()

	_, c, _ := inProcess(t)
	err := c.Call(ctxT(t), "initialize", map[string]any{"capabilities": map[string]any{}}, nil)
	if rpcCode(err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "initialize") {
		t.Fatalf("panicking initialize = %v, want InternalError naming initialize", err)
	}
	requests["initialize"] = init
	start(t, c) // a failed initialize may be retried
	err = c.Call(ctxT(t), "rx/test/panic", map[string]any{}, nil)
	if rpcCode(err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "rx/test/panic") {
		t.Fatalf("panicking request = %v, want InternalError naming it", err)
	}
	if err := c.Notify(ctxT(t), "rx/test/panic", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
		t.Fatalf("after the panics: %v", err)
	}
	restore()
	logs := strings.Join(logMessages(c), "\n")
	for _, want := range []string{"internal error serving initialize", "internal error serving rx/test/panic: boom in a request", "internal error serving rx/test/panic: boom in a notification"} {
		if !strings.Contains(logs, want) {
			t.Errorf("no logMessage %q in:\n%s", want, logs)
		}
	}
	if err := c.Call(ctxT(t), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// TestOddDocumentURIs: documents whose URI is not a file, or a file URI
// that names no local path, are kept by their URI (through the real
// notification table); a broken file URI is reported once, by its URI.
func TestOddDocumentURIs(t *testing.T) {
	t.Parallel()
	s, c, _ := inProcess(t)
	start(t, c)
	uris := []string{"file:///a%zzb", "untitled:Untitled-1", "vscode-vfs://github/o/r/x.go", "vscode-remote://ssh-remote+x/home/a/m.go", "file://otherhost/x", "file:rel"}
	for i, u := range uris {
		td := map[string]any{"uri": u, "languageId": "go", "version": 1, "text": "one\n"}
		if err := c.Notify(ctxT(t), "textDocument/didOpen", map[string]any{"textDocument": td}); err != nil {
			t.Fatal(err)
		}
		if err := c.Notify(ctxT(t), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": 2},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 3}}, "text": "two"}}}); err != nil {
			t.Fatal(err)
		}
		if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
			t.Fatalf("after %s: %v", u, err)
		}
		if text, v, open := s.document(u); !open || v != 2 || text != "two\n" {
			t.Errorf("%s: %q v%d open=%v, want it kept by its URI", u, text, v, open)
		}
		if i%2 == 0 {
			_ = c.Notify(ctxT(t), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		}
	}
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := s.docs.heldBytes(), len("two\n")*len(uris)/2; got != want {
		t.Errorf("held %d bytes after closing half, want %d", got, want)
	}
	logs := strings.Join(logMessages(c), "\n")
	for _, want := range []string{`file:///a%zzb is not a valid file URI: invalid URL escape "%zz"`, `file://otherhost/x names the host "otherhost"`, "file:rel names no absolute path"} {
		if !strings.Contains(logs, want) {
			t.Errorf("no warning %q in:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "untitled:") {
		t.Errorf("an untitled buffer was warned about:\n%s", logs)
	}
}

func TestWorkspaceRoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	folder := func(u string) []string { return []string{u} }
	tests := []struct {
		name    string
		flag    string
		folders []string
		roots   legacyRoots
		want    string
		err     string
	}{
		{name: "flag wins", flag: dir, folders: folder("vscode-remote://x/y"), want: dir},
		{name: "file folder", folders: folder("file://" + dir), want: dir},
		{name: "empty folder falls to rootUri", folders: folder(""), roots: legacyRoots{RootURI: "file://" + dir}, want: dir},
		{name: "remote folder", folders: folder("vscode-remote://ssh-remote+x/home/a"), want: "vscode-remote://ssh-remote+x/home/a"},
		{name: "remote rootUri", roots: legacyRoots{RootURI: "vscode-vfs://github/o/r"}, want: "vscode-vfs://github/o/r"},
		{name: "untitled", roots: legacyRoots{RootURI: "untitled:Untitled-1"}, want: "untitled:Untitled-1"},
		{name: "rootPath", roots: legacyRoots{RootPath: dir}, want: dir},
		{name: "bad escape", folders: folder("file:///a%zzb"), err: `workspace folder: file:///a%zzb is not a valid file URI: invalid URL escape "%zz"`},
		{name: "not a URI", roots: legacyRoots{RootURI: "some/dir"}, err: `rootUri "some/dir" is not a URI`},
		{name: "drive letter is not a scheme", roots: legacyRoots{RootURI: `C:\x`}, err: "is not a URI"},
		{name: "missing dir", folders: folder("file:///nonexistent/rx-bridge-ws"), err: "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := workspaceRoot(tt.flag, tt.folders, tt.roots)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || rpcCode(err) != jsonrpc2.InvalidParams {
					t.Fatalf("workspaceRoot = %q, %v; want -32602 %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("workspaceRoot = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// pipeServer is inProcess with options.
func pipeServer(t *testing.T, opts Options) (*Server, *lspclient.Client) {
	t.Helper()
	s := newServer(opts)
	return s, serveOnPipes(t, s)
}

// serveOnPipes serves s on pipes and returns a client for it; cleanup
// closes its input and waits for it to end.
func serveOnPipes(t testing.TB, s *Server) *lspclient.Client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	go func() {
		code <- s.serve(context.Background(), inR, outW)
		outW.Close()
	}()
	c := lspclient.New(outR, inW)
	t.Cleanup(func() {
		inW.Close()
		<-code
		c.Close()
	})
	return c
}

// TestDocumentCap is the complaint of issue 13 item 6, scaled down: five
// large didOpens were all held (five 50 MB buffers, 511 MB resident).
// The text held is capped; documents past the cap are read from disk,
// and the editor is told once.
func TestDocumentCap(t *testing.T) {
	t.Parallel()
	const limit, size = 1 << 20, 300 << 10 // five buffers are 1.5 MiB
	ws := t.TempDir()
	s, c := pipeServer(t, Options{Home: t.TempDir(), Workspace: ws, Version: "test", MaxDocuments: limit})
	start(t, c)
	path := func(i int) string { return filepath.Join(ws, fmt.Sprintf("f%d.txt", i)) }
	open := func(i int) {
		buf := fmt.Sprintf("buffer %d\n", i) + strings.Repeat("b", size-len("buffer 0\n"))
		td := map[string]any{"uri": "file://" + path(i), "languageId": "text", "version": 1, "text": buf}
		if err := c.Notify(ctxT(t), "textDocument/didOpen", map[string]any{"textDocument": td}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if err := os.WriteFile(path(i), fmt.Appendf(nil, "disk %d\n", i), 0o644); err != nil {
			t.Fatal(err)
		}
		open(i)
	}
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
		t.Fatal(err)
	}
	if held := checkHeld(t, s); held != 3*size {
		t.Fatalf("held %d bytes of five %d-byte buffers under a %d cap, want %d", held, size, limit, 3*size)
	}
	wsp, err := tools.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	read, _ := tools.Builtins().Lookup("read_file")
	env := &tools.Env{Workspace: wsp, Docs: &agentEditor{s: s}}
	for i, want := range []string{"buffer 0", "buffer 1", "buffer 2", "disk 3", "disk 4"} {
		out, err := read.Run(ctxT(t), env, json.RawMessage(fmt.Sprintf(`{"path":"f%d.txt","limit":1}`, i)))
		if err != nil || !strings.HasPrefix(out, want) {
			t.Errorf("read_file f%d.txt = %.40q, %v; want %q", i, out, err, want)
		}
	}
	// Room made by a close is used by the next open; a change that does
	// not fit drops its buffer. The editor was told once.
	_ = c.Notify(ctxT(t), "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": "file://" + path(0)}})
	open(4)
	_ = c.Notify(ctxT(t), "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": "file://" + path(1), "version": 2},
		"contentChanges": []any{map[string]any{"text": strings.Repeat("c", limit)}}})
	if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
		t.Fatal(err)
	}
	if held := checkHeld(t, s); held != 2*size {
		t.Errorf("held %d bytes, want %d (f2 and f4)", held, 2*size)
	}
	if _, _, open := s.document(path(4)); !open {
		t.Error("f4 not kept after a close made room")
	}
	n := 0
	for _, m := range logMessages(c) {
		if strings.Contains(m, "MiB the bridge holds in memory") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d logMessages about the cap, want 1", n)
	}
}

// checkHeld returns the bytes the documents hold, after checking the
// account against the texts themselves.
func checkHeld(t *testing.T, s *Server) int {
	t.Helper()
	s.docs.mu.Lock()
	sum := 0
	for _, d := range s.docs.open {
		sum += len(d.text)
	}
	s.docs.mu.Unlock()
	if held := s.docs.heldBytes(); held != sum {
		t.Fatalf("account says %d bytes held, the texts add up to %d", held, sum)
	}
	return sum
}

// fakeTimer is the throttle's clock and scheduler under test control.
type fakeTimer struct {
	mu    sync.Mutex
	now   time.Time
	flush func()
	waits []time.Duration
}

func (f *fakeTimer) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *fakeTimer) After(d time.Duration, flush func()) func() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flush, f.waits = flush, append(f.waits, d)
	return func() bool { return true }
}

// advance moves the clock on and runs the scheduled flush, if any.
func (f *fakeTimer) advance(d time.Duration) {
	f.mu.Lock()
	f.now = f.now.Add(d)
	flush := f.flush
	f.flush = nil
	f.mu.Unlock()
	if flush != nil {
		flush()
	}
}

// TestWarningFloodIsThrottled is the complaint of issue 13 item 6:
// 20 000 requests refused as busy became 19 936 window/logMessages. Per
// plugin and warning, the first is sent, repeats are counted, and one
// summary follows when the interval ends or at shutdown. The warnings go
// through the bridge's real logger (the one the extension host logs to).
func TestWarningFloodIsThrottled(t *testing.T) {
	t.Parallel()
	s := newServer(Options{Home: t.TempDir(), Workspace: t.TempDir(), Version: "test"})
	clock := &fakeTimer{now: time.Unix(1000, 0)}
	s.warnings.now, s.warnings.after = clock.Now, clock.After
	c := serveOnPipes(t, s)
	start(t, c)
	const busy = "wire: request refused, every handler is busy"
	roundTrip := func() {
		t.Helper()
		if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	count := func(sub string) int {
		n := 0
		for _, m := range logMessages(c) {
			if strings.Contains(m, sub) {
				n++
			}
		}
		return n
	}
	flood, other := s.log.With("plugin", "flood"), s.log.With("plugin", "other")
	for i := range 1000 {
		flood.Warn(busy, "method", "host/ui/request", "id", i, "limit", 64)
	}
	other.Warn(busy, "id", 1)
	other.Warn(busy, "id", 2)
	roundTrip()
	if n := count(busy); n != 2 {
		t.Fatalf("%d busy logMessages for 1002 warnings from two plugins, want 2 (the first of each):\n%s", n, strings.Join(logMessages(c), "\n"))
	}
	if len(clock.waits) != 1 || clock.waits[0] != warnInterval {
		t.Fatalf("flush scheduled %v, want once after %v", clock.waits, warnInterval)
	}
	clock.advance(warnInterval)
	roundTrip()
	for _, want := range []string{busy + " (999 more like this from flood)", busy + " (1 more like this from other)"} {
		if count(want) != 1 {
			t.Errorf("no summary %q in:\n%s", want, strings.Join(logMessages(c), "\n"))
		}
	}
	// A new interval starts with a warning sent again; at shutdown what
	// is counted is summarised, not lost.
	for range 6 {
		flood.Warn(busy)
	}
	if err := c.Call(ctxT(t), "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if n, sum := count(busy), count(busy+" (5 more like this from flood)"); n != 6 || sum != 1 {
		t.Errorf("%d busy logMessages (want 6) with %d shutdown summaries (want 1):\n%s", n, sum, strings.Join(logMessages(c), "\n"))
	}
}
