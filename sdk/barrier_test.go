package sdk_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

func TestBarrier(t *testing.T) {
	t.Parallel()
	var events atomic.Int32
	p := minimalPlugin()
	p.OnIntercept(extproto.InputReceive, func(context.Context, *sdk.Call) (sdk.Decision, error) { return sdk.Block("seen"), nil })
	p.OnEvent(extproto.InputReceive, func(context.Context, *sdk.Call) { events.Add(1) })
	h := sdktest.Start(t, p, sdktest.Options{NoHandshake: true})
	in := extproto.InputReceivePayload{Text: "hi"}

	_, err := h.Intercept(extproto.InputReceive, in)
	if pe := wantReason(t, err, extproto.ReasonProtocolError); !strings.Contains(pe.Message, "before extension/initialize") {
		t.Errorf("before initialize: %q", pe.Message)
	}
	if err := h.Event(extproto.InputReceive, in); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Initialize(); err != nil {
		t.Fatal(err)
	}
	_, err = h.Intercept(extproto.InputReceive, in)
	if pe := wantReason(t, err, extproto.ReasonProtocolError); !strings.Contains(pe.Message, "before extension/initialized") {
		t.Errorf("between initialize and initialized: %q", pe.Message)
	}
	if err := h.Event(extproto.InputReceive, in); err != nil {
		t.Fatal(err)
	}
	_, err = h.Initialize()
	wantReason(t, err, extproto.ReasonProtocolError)

	h.Initialized()
	res, err := h.Intercept(extproto.InputReceive, in)
	if err != nil || res.Decision != extproto.DecisionBlock {
		t.Fatalf("after initialized: %+v, %v", res, err)
	}
	// Events are ordered: one sent now is delivered after the two sent
	// before the barrier opened, which must have been dropped.
	if err := h.Event(extproto.InputReceive, in); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return events.Load() >= 1 })
	if n := events.Load(); n != 1 {
		t.Errorf("%d events delivered, want only the one after the barrier", n)
	}
}

func TestShutdownBeforeInitialize(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, minimalPlugin(), sdktest.Options{NoHandshake: true})
	res, err := h.Shutdown(0)
	if err != nil || !res.Accepted {
		t.Fatalf("shutdown: %+v, %v", res, err)
	}
}

// waitFor polls cond; it is for effects of notifications, which have no
// answer to wait on.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}
