package sdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

func interceptPlugin() *sdk.Plugin {
	p := minimalPlugin()
	sdk.Intercept(p, func(_ context.Context, in *extproto.InputReceivePayload) (sdk.Decision, error) {
		switch {
		case in.Text == "block me":
			return sdk.Block("example: blocked by policy"), nil
		case strings.HasPrefix(in.Text, "/fs "):
			return sdk.Replace(&extproto.InputReceivePayload{Text: strings.TrimPrefix(in.Text, "/fs ") + " [rewritten]"}), nil
		case in.Text == "empty me":
			return sdk.Replace(&extproto.InputReceivePayload{}), nil
		case in.Text == "allow me":
			return sdk.Allow(), nil
		}
		return sdk.Continue(), nil
	})
	sdk.Intercept(p, func(_ context.Context, in *extproto.PermissionDecisionPayload) (sdk.Decision, error) {
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
		point   extproto.HookPoint
		payload any
		want    extproto.InterceptResult
		reason  extproto.Reason
	}{
		{"continue", extproto.InputReceive, extproto.InputReceivePayload{Text: "hello"},
			extproto.InterceptResult{Decision: extproto.DecisionContinue}, ""},
		{"replace", extproto.InputReceive, extproto.InputReceivePayload{Text: "/fs hello world"},
			extproto.InterceptResult{Decision: extproto.DecisionReplace, Replacement: json.RawMessage(`{"text":"hello world [rewritten]"}`)}, ""},
		{"block", extproto.InputReceive, extproto.InputReceivePayload{Text: "block me"},
			extproto.InterceptResult{Decision: extproto.DecisionBlock, Reason: "example: blocked by policy"}, ""},
		{"allow at permission", extproto.PermissionDecision, extproto.PermissionDecisionPayload{Name: "ls", HostDecision: extproto.HostDeny},
			extproto.InterceptResult{Decision: extproto.DecisionAllow}, ""},
		{"deny at permission", extproto.PermissionDecision, extproto.PermissionDecisionPayload{Name: "rm_rf", HostDecision: extproto.HostAllow},
			extproto.InterceptResult{Decision: extproto.DecisionDeny, Reason: "too dangerous"}, ""},
		{"wildcard", extproto.ToolBefore, extproto.ToolBeforePayload{Name: "ls"},
			extproto.InterceptResult{Decision: extproto.DecisionBlock, Reason: "wildcard saw tool.before"}, ""},
		{"invalid replacement fails locally", extproto.InputReceive, extproto.InputReceivePayload{Text: "empty me"}, extproto.InterceptResult{}, extproto.ReasonInternal},
		{"allow outside permission fails locally", extproto.InputReceive, extproto.InputReceivePayload{Text: "allow me"}, extproto.InterceptResult{}, extproto.ReasonInternal},
		{"payload that does not decode", extproto.InputReceive, json.RawMessage(`{"text":"x","n":2}`), extproto.InterceptResult{}, extproto.ReasonInvalidParams},
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
	res, err := h.Intercept(extproto.ToolAfter, json.RawMessage(`{"anything":true}`))
	if err != nil || res.Decision != extproto.DecisionContinue {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestInterceptRawReplacement(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.OnIntercept(extproto.ToolBefore, func(_ context.Context, c *sdk.Call) (sdk.Decision, error) {
		if c.Seq < 1 || c.Timeout != extproto.InterceptTimeoutShort {
			t.Errorf("call %+v", c)
		}
		return sdk.ReplaceJSON(json.RawMessage(`{"name":"ls","arguments":"{\"path\":\".\"}"}`)), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	res, err := h.Intercept(extproto.ToolBefore, extproto.ToolBeforePayload{Name: "rm"})
	if err != nil || res.Decision != extproto.DecisionReplace || string(res.Replacement) != `{"name":"ls","arguments":"{\"path\":\".\"}"}` {
		t.Fatalf("got %+v, %v", res, err)
	}
}

func TestInterceptTimeout(t *testing.T) {
	t.Parallel()
	p := minimalPlugin()
	p.OnIntercept(extproto.InputReceive, func(ctx context.Context, _ *sdk.Call) (sdk.Decision, error) {
		<-ctx.Done()
		return sdk.Decision{}, ctx.Err()
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	_, err := h.InterceptWith(extproto.InterceptParams{Event: extproto.InputReceive, Seq: 1, Payload: json.RawMessage(`{"text":"x"}`), TimeoutMillis: 20})
	wantReason(t, err, extproto.ReasonInterceptTimeout)
}

func TestInterceptPanicKeepsConnection(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	p := minimalPlugin()
	p.OnIntercept(extproto.InputReceive, func(context.Context, *sdk.Call) (sdk.Decision, error) {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return sdk.Continue(), nil
	})
	h := sdktest.Start(t, p, sdktest.Options{})
	_, err := h.Intercept(extproto.InputReceive, extproto.InputReceivePayload{Text: "x"})
	wantReason(t, err, extproto.ReasonInternal)
	if res, err := h.Intercept(extproto.InputReceive, extproto.InputReceivePayload{Text: "x"}); err != nil || res.Decision != extproto.DecisionContinue {
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
		_, err := h.Conn.Call(h.Ctx(), extproto.MethodIntercept, json.RawMessage(params))
		if pe := wantReason(t, err, extproto.ReasonInvalidParams); pe == nil {
			t.Errorf("%s", name)
		}
	}
	if called.Load() {
		t.Error("the handler ran for an invalid envelope")
	}
}

func TestEventObservation(t *testing.T) {
	t.Parallel()
	got := make(chan *extproto.ToolAfterPayload, 1)
	p := minimalPlugin()
	sdk.Observe(p, func(_ context.Context, in *extproto.ToolAfterPayload) { got <- in })
	h := sdktest.Start(t, p, sdktest.Options{})
	// No observer for this one: nothing happens, nothing breaks.
	if err := h.Event(extproto.SessionEnd, extproto.SessionEndPayload{Phase: extproto.PhaseEnd}); err != nil {
		t.Fatal(err)
	}
	if err := h.Event(extproto.ToolAfter, extproto.ToolAfterPayload{Name: "ls", Result: "ok"}); err != nil {
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
	if err := h.Conn.Notify(h.Ctx(), extproto.MethodResourcesChanged, json.RawMessage(`{}`)); err != nil {
		t.Fatal(err) // dropped: paths is required
	}
	if err := h.Conn.Notify(h.Ctx(), extproto.MethodResourcesChanged, extproto.ResourcesChangedParams{Paths: []string{"skills/a", "themes/b"}}); err != nil {
		t.Fatal(err)
	}
	if paths := <-got; strings.Join(paths, ",") != "skills/a,themes/b" {
		t.Errorf("paths %v", paths)
	}
}
