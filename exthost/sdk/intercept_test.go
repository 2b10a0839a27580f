package sdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/exthost/protocol"
	"github.com/rx-bridge/rx-bridge/exthost/sdk"
	"github.com/rx-bridge/rx-bridge/exthost/sdk/sdktest"
)

func interceptPlugin() *sdk.Plugin {
	p := minimalPlugin()
	sdk.Intercept(p, func(_ context.Context, in *protocol.InputReceivePayload) (sdk.Decision, error) {
		switch {
		case in.Text == "block me":
			return sdk.Block("example: blocked by policy"), nil
		case strings.HasPrefix(in.Text, "/fs "):
			return sdk.Replace(&protocol.InputReceivePayload{Text: strings.TrimPrefix(in.Text, "/fs ") + " [rewritten]"}), nil
		case in.Text == "empty me":
			return sdk.Replace(&protocol.InputReceivePayload{}), nil
		case in.Text == "allow me":
			return sdk.Allow(), nil
		}
		return sdk.Continue(), nil
	})
	sdk.Intercept(p, func(_ context.Context, in *protocol.PermissionDecisionPayload) (sdk.Decision, error) {
		if in.Name == "rm_rf" {
			return sdk.Deny("too dangerous"), nil
		}
		return sdk.Allow(), nil
	})
	p.OnIntercept(sdk.AnyPoint, func(_ context.Context, c *sdk.Call) (sdk.Decision, error) {
		return sdk.Block("wildcard saw " + string(c.Point)), nil
	})
	return p
}

func TestInterceptDecisions(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, interceptPlugin(), sdktest.Options{})
	for _, tc := range []struct {
		name    string
		point   protocol.HookPoint
		payload any
		want    protocol.InterceptResult
		reason  protocol.Reason
	}{
		{"continue", protocol.InputReceive, protocol.InputReceivePayload{Text: "hello"},
			protocol.InterceptResult{Decision: protocol.DecisionContinue}, ""},
		{"replace", protocol.InputReceive, protocol.InputReceivePayload{Text: "/fs hello world"},
			protocol.InterceptResult{Decision: protocol.DecisionReplace, Replacement: json.RawMessage(`{"text":"hello world [rewritten]"}`)}, ""},
		{"block", protocol.InputReceive, protocol.InputReceivePayload{Text: "block me"},
			protocol.InterceptResult{Decision: protocol.DecisionBlock, Reason: "example: blocked by policy"}, ""},
		{"allow at permission", protocol.PermissionDecision, protocol.PermissionDecisionPayload{Name: "ls", HostDecision: protocol.HostDeny},
			protocol.InterceptResult{Decision: protocol.DecisionAllow}, ""},
		{"deny at permission", protocol.PermissionDecision, protocol.PermissionDecisionPayload{Name: "rm_rf", HostDecision: protocol.HostAllow},
			protocol.InterceptResult{Decision: protocol.DecisionDeny, Reason: "too dangerous"}, ""},
		{"wildcard", protocol.ToolBefore, protocol.ToolBeforePayload{Name: "ls"},
			protocol.InterceptResult{Decision: protocol.DecisionBlock, Reason: "wildcard saw tool.before"}, ""},
		{"invalid replacement fails locally", protocol.InputReceive, protocol.InputReceivePayload{Text: "empty me"}, protocol.InterceptResult{}, protocol.ReasonInternal},
		{"allow outside permission fails locally", protocol.InputReceive, protocol.InputReceivePayload{Text: "allow me"}, protocol.InterceptResult{}, protocol.ReasonInternal},
		{"payload that does not decode", protocol.InputReceive, json.RawMessage(`{"text":"x","n":2}`), protocol.InterceptResult{}, protocol.ReasonInvalidParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := h.Intercept(tc.point, tc.payload)
			if tc.reason != "" {
				wantReason(t, err, tc.reason)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Decision != tc.want.Decision || res.Reason != tc.want.Reason || string(res.Replacement) != string(tc.want.Replacement) {
				t.Errorf("got %+v (replacement %s), want %+v (replacement %s)", res, res.Replacement, tc.want, tc.want.Replacement)
			}
		})
	}
}

func TestInterceptWithoutHandlerContinues(t *testing.T) {
	t.Parallel()
	h := sdktest.Start(t, minimalPlugin(), sdktest.Options{})
	// The payload is not even decoded: a point without a handler costs nothing.
	res, err := h.Intercept(protocol.ToolAfter, json.RawMessage(`{"anything":true}`))
	if err != nil || res.Decision != protocol.DecisionContinue {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestInterceptRawReplacement(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.OnIntercept(protocol.ToolBefore, func(_ context.Context, c *sdk.Call) (sdk.Decision, error) {
		if c.Seq < 1 || c.Timeout != protocol.InterceptTimeoutShort {
			t.Errorf("call %+v", c)
		}
		return sdk.ReplaceJSON(json.RawMessage(`{"name":"ls","arguments":"{\"path\":\".\"}"}`)), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	res, err := h.Intercept(protocol.ToolBefore, protocol.ToolBeforePayload{Name: "rm"})
	if err != nil || res.Decision != protocol.DecisionReplace || string(res.Replacement) != `{"name":"ls","arguments":"{\"path\":\".\"}"}` {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestInterceptTimeout(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.OnIntercept(protocol.InputReceive, func(ctx context.Context, _ *sdk.Call) (sdk.Decision, error) {
		<-ctx.Done()
		return sdk.Decision{}, ctx.Err()
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	_, err := h.InterceptWith(protocol.InterceptParams{Event: protocol.InputReceive, Seq: 1, Payload: json.RawMessage(`{"text":"x"}`), TimeoutMillis: 20})
	wantReason(t, err, protocol.ReasonInterceptTimeout)
}

func TestInterceptPanicKeepsConnection(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := minimalPlugin()
	p.OnIntercept(protocol.InputReceive, func(context.Context, *sdk.Call) (sdk.Decision, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return sdk.Continue(), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	_, err := h.Intercept(protocol.InputReceive, protocol.InputReceivePayload{Text: "x"})
	wantReason(t, err, protocol.ReasonInternal)
	if res, err := h.Intercept(protocol.InputReceive, protocol.InputReceivePayload{Text: "x"}); err != nil || res.Decision != protocol.DecisionContinue {
		t.Fatalf("after a panic: %+v, %v", res, err)
	}
}

func TestInterceptInvalidEnvelope(t *testing.T) {
	t.Parallel()
	var called atomic.Bool
	p := minimalPlugin()
	p.OnIntercept(sdk.AnyPoint, func(context.Context, *sdk.Call) (sdk.Decision, error) {
		called.Store(true)
		return sdk.Continue(), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	for name, params := range map[string]string{
		"unknown event":      `{"event":"bogus.point","seq":1,"payload":{},"timeoutMillis":5}`,
		"seq 0":              `{"event":"input.receive","seq":0,"payload":{},"timeoutMillis":5}`,
		"missing payload":    `{"event":"input.receive","seq":1,"timeoutMillis":5}`,
		"negative and extra": `{"event":"input.receive","seq":1,"payload":{},"timeoutMillis":-1,"x":1}`,
	} {
		_, err := h.Conn.Call(h.Ctx(), protocol.MethodIntercept, json.RawMessage(params))
		if pe := wantReason(t, err, protocol.ReasonInvalidParams); pe == nil {
			t.Errorf("%s", name)
		}
	}
	if called.Load() {
		t.Error("the handler ran for an invalid envelope")
	}
}

func TestEventObservation(t *testing.T) {
	t.Parallel()
	got := make(chan *protocol.ToolAfterPayload, 1)
	p := minimalPlugin()
	sdk.Observe(p, func(_ context.Context, in *protocol.ToolAfterPayload) { got <- in })
	h := sdktest.Start(t, p, sdktest.Options{})
	// No observer for this one: nothing happens, nothing breaks.
	if err := h.Event(protocol.SessionEnd, protocol.SessionEndPayload{Phase: protocol.PhaseEnd}); err != nil {
		t.Fatal(err)
	}
	if err := h.Event(protocol.ToolAfter, protocol.ToolAfterPayload{Name: "ls", Result: "ok"}); err != nil {
		t.Fatal(err)
	}
	in := <-got
	if in.Name != "ls" || in.Result != "ok" {
		t.Errorf("observed %+v", in)
	}
}

func TestResourcesChanged(t *testing.T) {
	t.Parallel()
	got := make(chan []string, 1)
	p := minimalPlugin()
	p.OnResourcesChanged(func(_ context.Context, paths []string) { got <- paths })
	h := sdktest.Start(t, p, sdktest.Options{})
	if err := h.Conn.Notify(h.Ctx(), protocol.MethodResourcesChanged, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err) // dropped: paths is required
	}
	if err := h.Conn.Notify(h.Ctx(), protocol.MethodResourcesChanged, protocol.ResourcesChangedParams{Paths: []string{"skills/a", "themes/b"}}); err != nil {
		t.Fatal(err)
	}
	if paths := <-got; strings.Join(paths, ",") != "skills/a,themes/b" {
		t.Errorf("paths %v", paths)
	}
}
