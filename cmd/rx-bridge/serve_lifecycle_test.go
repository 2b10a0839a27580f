package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/internal/bridge/lspclient"
)

func rpcCode(err error) int { return lspclient.Code(err) }

func TestServeLifecycle(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	c := e.start()
	ctx := ctxT(t)
	if err := c.Call(ctx, "rx/actions", nil, nil); rpcCode(err) != -32002 {
		t.Fatalf("request before initialize: %v, want -32002", err)
	}
	res := initialized(t, c, clientCaps(fullRx(), nil))
	rx := res.Capabilities.Experimental.RxBridge
	if rx.Version != 1 || rx.Home != e.home || res.ServerInfo.Name != "rx-bridge" {
		t.Errorf("initialize result: %+v", res)
	}
	if got := strings.Join(res.Capabilities.ExecuteCommandProvider.Commands, ","); got != "rx.runAction,rx.reload" {
		t.Errorf("commands = %s", got)
	}
	if res.Capabilities.TextDocumentSync["change"] != float64(2) {
		t.Errorf("textDocumentSync = %v", res.Capabilities.TextDocumentSync)
	}
	if err := c.Call(ctx, "initialize", map[string]any{"capabilities": map[string]any{}}, nil); rpcCode(err) != lspclient.CodeInvalidRequest {
		t.Errorf("second initialize: %v", err)
	}
	if err := c.Call(ctx, "textDocument/hover", map[string]any{}, nil); rpcCode(err) != lspclient.CodeMethodNotFound {
		t.Errorf("unknown method: %v", err)
	}
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Call(ctx, "rx/actions", nil, nil); rpcCode(err) != lspclient.CodeInvalidRequest {
		t.Errorf("request after shutdown: %v, want -32600", err)
	}
	if err := c.Notify(ctx, "exit", nil); err != nil {
		t.Fatal(err)
	}
	if code := c.ExitCode(scaled(10 * time.Second)); code != 0 {
		t.Fatalf("exit after shutdown: status %d", code)
	}
}

func TestServeExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	for _, initFirst := range []bool{false, true} {
		e := newServeEnv(t)
		c := e.start()
		if initFirst {
			initialized(t, c, clientCaps(nil, nil))
		}
		if err := c.Notify(ctxT(t), "exit", nil); err != nil {
			t.Fatal(err)
		}
		if code := c.ExitCode(scaled(10 * time.Second)); code != 1 {
			t.Errorf("initialized=%v: exit without shutdown: status %d, want 1", initFirst, code)
		}
	}
}

// TestServeMalformedInput: broken framing ends the connection with an
// error answer and status 1; a broken body is answered and the server
// goes on. Never a panic, never a hang.
func TestServeMalformedInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		input  string
		fatal  bool
		answer string
	}{
		{name: "bad content length", input: "Content-Length: abc\r\n\r\n{}", fatal: true, answer: "invalid Content-Length"},
		{name: "huge content length", input: "Content-Length: 9999999999999\r\n\r\n{}", fatal: true, answer: "exceeds the limit"},
		{name: "no content length", input: "Content-Type: x\r\n\r\n{}", fatal: true, answer: "missing Content-Length"},
		{name: "endless header", input: "X: " + strings.Repeat("a", 100000), fatal: true, answer: "header"},
		{name: "non-JSON body", input: "Content-Length: 9\r\n\r\n{not json", answer: "-32700"},
		{name: "JSON that is not a message", input: "Content-Length: 7\r\n\r\n[1,2,3]", answer: "-32600"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newServeEnv(t)
			c := e.start()
			initialized(t, c, clientCaps(nil, nil))
			// A fatal input may be cut off by the server going away
			// (broken pipe); what it answered is what counts.
			if err := c.WriteRaw([]byte(tt.input)); err != nil && !tt.fatal {
				t.Fatal(err)
			}
			got, err := c.WaitDropped(ctxT(t))
			if err != nil {
				t.Fatalf("no error answer: %v", err)
			}
			if !strings.Contains(got, tt.answer) || !strings.Contains(got, `"id":null`) {
				t.Errorf("answer %s does not contain %q", got, tt.answer)
			}
			if tt.fatal {
				if code := c.ExitCode(scaled(10 * time.Second)); code != 1 {
					t.Fatalf("status %d, want 1", code)
				}
				return
			}
			// The connection survives: the next request is served.
			if err := c.Call(ctxT(t), "rx/actions", nil, nil); err != nil {
				t.Fatalf("after a bad body: %v", err)
			}
			shutdownExit(t, c)
		})
	}
}

// TestServeEditorGone: stdin closes with plugins running; the bridge
// exits on its own and no sidecar is left. (How fast is a benchmark's
// business, not a unit test's: the time is logged.)
func TestServeEditorGone(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello", "uikit")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	if n := len(sidecarsOf(e.home)); n < 2 {
		t.Fatalf("%d sidecars running, want 2", n)
	}
	began := time.Now()
	if err := c.CloseInput(); err != nil {
		t.Fatal(err)
	}
	code := c.ExitCode(scaled(5 * time.Second))
	took := time.Since(began)
	if code != 1 {
		t.Errorf("status %d, want 1 (no shutdown)", code)
	}
	waitNoSidecars(t, e.home, scaled(time.Second))
	t.Logf("exited %v after stdin closed", took.Round(time.Millisecond))
}

// TestServeSignal: SIGTERM ends serve like a closed stdin, with every
// sidecar shut down.
func TestServeSignal(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t, "hello")
	c := e.start()
	initialized(t, c, clientCaps(fullRx(), nil))
	if len(sidecarsOf(e.home)) == 0 {
		t.Fatal("no sidecar running")
	}
	if err := c.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.ExitCode(scaled(5 * time.Second)); code != 1 {
		t.Errorf("status %d after SIGTERM, want 1", code)
	}
	waitNoSidecars(t, e.home, scaled(time.Second))
}
