package sdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

const deadline = sdktest.Deadline

// wantReason fails unless err is a *extproto.Error with reason r and
// that reason's code.
func wantReason(t *testing.T, err error, r extproto.Reason) *extproto.Error {
	t.Helper()
	var pe *extproto.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T), want reason %s", err, err, r)
	}
	info, _ := r.Info()
	if pe.Reason != r || pe.Code != info.Code {
		t.Fatalf("error %q: reason %q code %d, want %q code %d", pe.Message, pe.Reason, pe.Code, r, info.Code)
	}
	return pe
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawHost drives Serve with hand-written frames, for what a wire.Conn
// cannot send or would hide (frame order, broken envelopes).
type rawHost struct {
	t      *testing.T
	w      *os.File
	lines  chan string
	served chan error
}

func startRaw(t *testing.T, p *sdk.Plugin) *rawHost {
	t.Helper()
	return startRawCtx(t, context.Background(), p)
}

func startRawCtx(t *testing.T, ctx context.Context, p *sdk.Plugin) *rawHost {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	h := &rawHost{t: t, w: inW, lines: make(chan string, 1024), served: make(chan error, 1)}
	go func() {
		h.served <- sdk.Serve(ctx, p, sdk.Options{Stdin: inR, Stdout: outW, Logger: slog.New(slog.DiscardHandler)})
	}()
	go func() {
		defer close(h.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-h.served:
		case <-time.After(deadline):
			t.Error("Serve did not return")
		}
		outR.Close()
		for range h.lines {
		}
	})
	return h
}

func (h *rawHost) send(line string) {
	h.t.Helper()
	if _, err := h.w.WriteString(line + "\n"); err != nil {
		h.t.Fatal(err)
	}
}

func (h *rawHost) next() string {
	h.t.Helper()
	select {
	case l, ok := <-h.lines:
		if !ok {
			h.t.Fatal("the plugin closed its stdout")
		}
		return l
	case <-time.After(deadline):
		h.t.Fatal("no frame from the plugin")
	}
	return ""
}

// handshake completes initialize/initialized with id 1.
func (h *rawHost) handshake() {
	h.t.Helper()
	h.send(initializeFrame(1, "1"))
	if l := h.next(); !strings.Contains(l, `"result"`) {
		h.t.Fatalf("initialize answered %s", l)
	}
	h.send(`{"jsonrpc":"2.0","method":"extension/initialized","params":{}}`)
}

func initializeFrame(id int, version string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"extension/initialize","params":{"protocolVersion":"` + version + `","protocolId":"reasonix.extension.v1","manifest":{},"session":{"sessionId":"sess-1","workspaceRoot":"/repo","generation":7},"capabilities":{"contentRefs":true,"uiHost":"headless","protocolVersion":"1"}}}`
}

// frame is a decoded answer frame.
type frame struct {
	ID     *int64          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseFrame(t *testing.T, line string) frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal([]byte(line), &f); err != nil {
		t.Fatalf("frame %s: %v", line, err)
	}
	return f
}

func minimalPlugin() *sdk.Plugin { return &sdk.Plugin{Name: "test-plugin", Version: "1.0.0"} }
