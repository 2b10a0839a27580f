package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/extproto/wire"
	"github.com/rx-bridge/rx-bridge/sdk"
)

// floodExtra is how many questions the flood plugin asks on top of the
// ones that fill every host handler.
const floodExtra = 500

// TestServeFloodHelper is not a test: with sidecarEnv=flood the test
// binary is the "flood" plugin sidecar.
func TestServeFloodHelper(t *testing.T) {
	if os.Getenv(sidecarEnv) != "flood" {
		return
	}
	sdk.Main(floodPlugin(), sdk.Options{})
	os.Exit(0)
}

// floodPlugin's "hold" asks as many questions as the host has request
// handlers and leaves them open; "flood" then asks floodExtra more at
// once, which the host can only refuse as busy, and says how many were.
func floodPlugin() *sdk.Plugin {
	p := &sdk.Plugin{Name: "flood", Version: "0.0.1"}
	p.Action("hold", "Fill every host handler", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		for range wire.DefaultMaxHandlers {
			go func() { _, _ = h.Select(context.Background(), "Held?", []string{"yes"}) }()
		}
		return "holding", nil
	})
	p.Action("flood", "Ask more than the host serves", func(ctx context.Context, _ *extproto.UIActionParams) (string, error) {
		h := sdk.HostFrom(ctx)
		var refused atomic.Int64
		var wg sync.WaitGroup
		for range floodExtra {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := h.Select(ctx, "Again?", []string{"yes"}); err != nil && strings.Contains(err.Error(), "busy") {
					refused.Add(1)
				}
			}()
		}
		wg.Wait()
		return fmt.Sprintf("refused=%d", refused.Load()), nil
	})
	return p
}

// installFlood installs this test binary, re-executed, as the flood
// plugin.
func (e *serveEnv) installFlood() {
	installHelperPlugin(e.t, e.home, "flood", map[string]any{
		"args":         []string{"-test.run=^TestServeFloodHelper$"},
		"capabilities": []string{"ui"},
	})
}

// TestServeBusyFloodIsThrottled is the complaint of issue 13 item 6 with
// a real sidecar: requests refused as busy each became a
// window/logMessage (19 936 of them for 20 000 refusals). Now the first
// is sent and the rest are counted into a summary, so every refusal is
// accounted for in a handful of messages.
func TestServeBusyFloodIsThrottled(t *testing.T) {
	t.Parallel()
	e := newServeEnv(t)
	e.installFlood()
	c := e.start()
	held, release := make(chan struct{}), make(chan struct{})
	var asked atomic.Int64
	c.Handle("rx/ui/request", func(ctx context.Context, _ json.RawMessage) (any, error) {
		if asked.Add(1) == wire.DefaultMaxHandlers {
			close(held)
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"cancelled": true}, nil
	})
	initialized(t, c, clientCaps(fullRx(), nil))
	if res, err := runAction(t, c, "/flood:hold"); err != nil || res["message"] != "holding" {
		t.Fatalf("hold = %v, %v", res, err)
	}
	select {
	case <-held:
	case <-ctxT(t).Done():
		t.Fatalf("the editor saw %d questions, want %d", asked.Load(), wire.DefaultMaxHandlers)
	}
	res, err := runAction(t, c, "/flood:flood")
	close(release)
	if err != nil || res["message"] != fmt.Sprintf("refused=%d", floodExtra) {
		t.Fatalf("flood = %v, %v; want every extra question refused as busy", res, err)
	}
	if err := c.Call(ctxT(t), "shutdown", nil, nil); err != nil { // flushes the summaries
		t.Fatal(err)
	}
	const busy = "every handler is busy"
	var sent []string
	accounted := 0
	for _, m := range c.Messages("window/logMessage") {
		var p struct{ Message string }
		_ = json.Unmarshal(m.Params, &p)
		if !strings.Contains(p.Message, busy) {
			continue
		}
		sent = append(sent, p.Message)
		var n int
		if i := strings.LastIndex(p.Message, " ("); i >= 0 && strings.HasSuffix(p.Message, " more like this from flood)") {
			if _, err := fmt.Sscanf(p.Message[i:], " (%d more", &n); err == nil {
				accounted += n
				continue
			}
		}
		accounted++
	}
	if accounted != floodExtra || len(sent) > 4 {
		t.Fatalf("%d busy logMessages account for %d refusals, want a few accounting for %d:\n%s", len(sent), accounted, floodExtra, strings.Join(sent, "\n"))
	}
	t.Logf("%d refusals became %d logMessages: %q", floodExtra, len(sent), sent)
	if err := c.Notify(ctxT(t), "exit", nil); err != nil {
		t.Fatal(err)
	}
}
