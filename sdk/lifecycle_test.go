package sdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

func TestShutdown(t *testing.T) {
	t.Parallel()
	t.Run("hook runs with the deadline", func(t *testing.T) {
		t.Parallel()
		ran := make(chan bool, 1)
		p := minimalPlugin()
		p.OnShutdown(func(ctx context.Context) error {
			_, ok := ctx.Deadline()
			ran <- ok
			return nil
		})
		h := sdktest.Start(t, p, sdktest.Options{})
		res, err := h.Shutdown(5 * time.Second)
		if err != nil || !res.Accepted {
			t.Fatalf("shutdown: %+v, %v", res, err)
		}
		if !<-ran {
			t.Error("the hook's context had no deadline")
		}
	})
	t.Run("no hook, timeout 0", func(t *testing.T) {
		t.Parallel()
		h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
		if res, err := h.Shutdown(0); err != nil || !res.Accepted {
			t.Fatalf("shutdown: %+v, %v", res, err)
		}
	})
	t.Run("hook ignoring the deadline", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		p := minimalPlugin()
		p.OnShutdown(func(context.Context) error { <-release; return nil })
		h := sdktest.Start(t, p, sdktest.Options{})
		res, err := sdktest.Call[extproto.ShutdownResult](h, extproto.MethodShutdown, extproto.ShutdownParams{TimeoutMillis: 20})
		close(release) // only now: the answer did not wait for the hook
		if err != nil || !res.Accepted {
			t.Fatalf("shutdown: %+v, %v", res, err)
		}
		if err := h.WaitServed(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("negative timeout", func(t *testing.T) {
		t.Parallel()
		h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
		_, err := h.Conn.Call(h.Ctx(), extproto.MethodShutdown, json.RawMessage(`{"timeoutMillis":-1}`))
		wantReason(t, err, extproto.ReasonInvalidParams)
	})
}

func TestServeEnds(t *testing.T) {
	t.Parallel()
	t.Run("host EOF returns nil", func(t *testing.T) {
		t.Parallel()
		h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
		_ = h.Conn.Close()
		if err := h.WaitServed(); err != nil {
			t.Fatalf("Serve after EOF: %v", err)
		}
	})
	t.Run("context cancel", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		h := startRawCtx(t, ctx, minimalPlugin())
		h.handshake()
		cancel()
		select {
		case err := <-h.served:
			h.served <- err
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Serve: %v, want context.Canceled", err)
			}
		case <-time.After(deadline):
			t.Fatal("Serve ignored its context")
		}
	})
	t.Run("oversized frame", func(t *testing.T) {
		t.Parallel()
		h := startRaw(t, minimalPlugin())
		go h.w.WriteString(`{"jsonrpc":"2.0","id":1,"method":"extension/initialize","params":{"pad":"` + strings.Repeat("x", extproto.FrameBytes) + "\"}}\n")
		select {
		case err := <-h.served:
			h.served <- err
			wantReason(t, err, extproto.ReasonFrameTooLarge)
		case <-time.After(deadline):
			t.Fatal("Serve survived an oversized frame")
		}
	})
}

func TestUnknownMethod(t *testing.T) {
	t.Parallel()
	h := startRaw(t, minimalPlugin())
	h.handshake()
	h.send(`{"jsonrpc":"2.0","id":2,"method":"extension/bogus","params":{}}`)
	// A method the host would send the other way is unknown here too.
	h.send(`{"jsonrpc":"2.0","id":3,"method":"host/ui/publish","params":{}}`)
	methods := map[int64]string{2: "extension/bogus", 3: "host/ui/publish"}
	for range methods { // answers come in either order
		f := parseFrame(t, h.next())
		if f.ID == nil || f.Error == nil || f.Error.Code != extproto.CodeMethodNotFound || f.Error.Message != "method not found: "+methods[*f.ID] ||
			string(f.Error.Data) != `{"reason":"unknown_method","retryable":false}` {
			t.Errorf("unknown method answered %s", mustJSON(t, f))
		}
	}
}

func TestStrictFrameViolations(t *testing.T) {
	t.Parallel()
	h := startRaw(t, minimalPlugin())
	// As Reasonix's SDK, the two jsonrpc cases echo their valid ids.
	for _, tc := range []struct{ line, id string }{
		{`{"jsonrpc":"1.0","id":1,"method":"extension/initialize","params":{}}`, "1"},
		{`{"id":2,"method":"extension/initialize","params":{}}`, "2"},
		{`{"jsonrpc":"2.0","id":"s","method":"extension/initialize","params":{}}`, "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"extension/initialize","params":{}}`, "null"},
		{`{"jsonrpc":"2.0","id":3,"method":"extension/initialize","params":[]}`, "3"},
		{`{"jsonrpc":"2.0","id":4,"method":"extension/initialize","params":7}`, "4"},
		{`{"jsonrpc":"2.0","id":5,"method":"extension/initialize","result":{}}`, "5"},
	} {
		h.send(tc.line)
		l := h.next()
		f := parseFrame(t, l)
		if f.Error == nil || f.Error.Code != extproto.CodeInvalidRequest || !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":`+tc.id+`,`) {
			t.Errorf("%s answered %s", tc.line, l)
		}
	}
	h.handshake()
}

func TestHandlerPoolSaturated(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var parked atomic.Int32
	p := minimalPlugin()
	p.OnIntercept(extproto.ToolBefore, func(context.Context, *sdk.Call) (sdk.Decision, error) {
		parked.Add(1)
		<-release
		return sdk.Continue(), nil
	})
	h := startRaw(t, p)
	h.handshake()
	intercept := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"extension/intercept","params":{"event":"tool.before","seq":` + strconv.Itoa(id) + `,"payload":{"name":"x"},"timeoutMillis":0}}`
	}
	busy := func(id int) string {
		return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"error":{"code":-32099,"message":"server busy"}}`
	}
	// Park one request at a time. The handshake's handler may still hold
	// its slot for a moment after its answer, so a request can be refused
	// as busy while fewer than 32 are parked: send it again.
	id := 10
	for parked.Load() < 32 {
		id++
		want := parked.Load() + 1
		h.send(intercept(id))
		for parked.Load() < want {
			select {
			case l := <-h.lines:
				if l != busy(id) {
					t.Fatalf("unexpected frame %s", l)
				}
				want = -1 // refused: send again
			case <-time.After(time.Millisecond):
			}
			if want < 0 {
				break
			}
		}
	}
	h.send(intercept(99))
	if l := h.next(); l != busy(99) {
		t.Errorf("the 33rd request got %s", l)
	}
	close(release)
	for i := 0; i < 32; i++ {
		if f := parseFrame(t, h.next()); string(f.Result) != `{"decision":"continue"}` {
			t.Errorf("parked request answered %+v", f)
		}
	}
}

// TestServeStdio runs Serve on the process's own standard streams, as a
// sidecar does: after the shutdown answer it returns at once although
// the host keeps the child's stdin open and the read of it, blocking,
// cannot be interrupted (Serve giving up after closeGrace would warn on
// stderr).
func TestServeStdio(t *testing.T) {
	if os.Getenv("SDK_STDIO_CHILD") != "" {
		err := sdk.Serve(context.Background(), minimalPlugin(), sdk.Options{})
		if err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	t.Parallel()
	runStdioChild(t)
}

func runStdioChild(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestServeStdio$")
	cmd.Env = append(os.Environ(), "SDK_STDIO_CHILD=1")
	h, stderr := sdktest.StartCmd(t, cmd, sdktest.Options{})
	// The host keeps the child's stdin open.
	res, err := h.Shutdown(time.Second)
	if err != nil || !res.Accepted {
		t.Fatalf("shutdown: %+v, %v; stderr: %s", res, err, stderr)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("child stderr: %s", s)
	}
}
