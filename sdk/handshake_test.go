package sdk_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/sdk"
	"github.com/rx-bridge/rx-bridge/sdk/sdktest"
)

func TestHandshakeHappyPath(t *testing.T) {
	t.Parallel()
	p := &sdk.Plugin{Name: "example-ext", Version: "1.0.0", Replaces: []string{"system_prompt"}}
	var seen *extproto.InitializeParams
	var earlyPublish error
	p.OnInitialize(func(ctx context.Context, init *extproto.InitializeParams) error {
		seen = init
		_, earlyPublish = sdk.HostFrom(ctx).Publish(ctx, "s", extproto.UIStatusPayload{Label: "too early"})
		return nil
	})
	sdk.Intercept(p, func(context.Context, *extproto.InputReceivePayload) (sdk.Decision, error) { return sdk.Continue(), nil })
	sdk.Observe(p, func(context.Context, *extproto.SessionStartPayload) {})
	p.Action("demo", "Run the demo", func(context.Context, *extproto.UIActionParams) (string, error) { return "", nil })
	p.Provide(sdk.Provider{
		Descriptor: extproto.ProviderDescriptor{Ref: "fake/echo", Model: "echo", ContextWindow: 64000},
		Stream:     func(context.Context, *extproto.StreamOpenParams, *sdk.Stream) error { return nil },
	})

	h := sdktest.Start(t, p, sdktest.Options{NoHandshake: true, Serve: sdk.Options{PluginID: "example-ext"}})
	res, err := h.Initialize()
	if err != nil {
		t.Fatal(err)
	}
	want := &extproto.InitializeResult{
		ProtocolVersion: "1",
		Name:            "example-ext",
		Version:         "1.0.0",
		Subscriptions:   []string{"input.receive", "session.start"},
		Replaces:        []string{"system_prompt"},
		Providers:       []extproto.ProviderDescriptor{{Ref: "plugin/example-ext/fake/echo", Model: "echo", ContextWindow: 64000}},
		UIActions:       []extproto.UIActionDecl{{ActionID: "demo", Label: "Run the demo"}},
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("result\n%+v\nwant\n%+v", res, want)
	}
	if seen == nil || seen.Session != (extproto.SessionContext{SessionID: "sess-1", WorkspaceRoot: "/repo", Generation: 7}) ||
		!seen.Capabilities.ContentRefs || seen.Capabilities.UIHost != extproto.UIHostHeadless {
		t.Errorf("OnInitialize saw %+v", seen)
	}
	if !errors.Is(earlyPublish, sdk.ErrNotReady) {
		t.Errorf("publish inside OnInitialize: %v, want ErrNotReady", earlyPublish)
	}
	if h.Published() != nil {
		t.Errorf("the early publish reached the host: %+v", h.Published())
	}
}

func TestHandshakeVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, id, version string
		want              extproto.Reason // "" accepts
	}{
		{"major 1", extproto.ProtocolID, "1", ""},
		{"leading zero", extproto.ProtocolID, "01", ""},
		{"major 2", extproto.ProtocolID, "2", extproto.ReasonUnsupportedVersion},
		{"major 0", extproto.ProtocolID, "0", extproto.ReasonUnsupportedVersion},
		{"not an integer", extproto.ProtocolID, "1.0", extproto.ReasonProtocolError},
		{"other protocol", "reasonix.extension.v2", "1", extproto.ReasonUnsupportedVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := sdktest.Start(t, minimalPlugin(), sdktest.Options{NoHandshake: true})
			_, err := sdktest.Call[extproto.InitializeResult](h, extproto.MethodInitialize, extproto.InitializeParams{
				ProtocolID: tc.id, ProtocolVersion: tc.version,
				Session:      extproto.SessionContext{SessionID: "s", WorkspaceRoot: "/w"},
				Capabilities: extproto.HostCapabilities{UIHost: extproto.UIHostHeadless, ProtocolVersion: "1"},
			})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("initialize: %v", err)
				}
				return
			}
			wantReason(t, err, tc.want)
			// A version failure is fatal: Serve ends with it.
			wantReason(t, h.WaitServed(), tc.want)
		})
	}
}

func TestHandshakeInvalidParamsIsNotFatal(t *testing.T) {
	t.Parallel()
	h := startRaw(t, minimalPlugin())
	h.send(strings.Replace(initializeFrame(1, "1"), `"manifest":{}`, `"manifest":{},"extra":1`, 1))
	f := parseFrame(t, h.next())
	if f.Error == nil || f.Error.Code != extproto.CodeInvalidParams || !strings.Contains(f.Error.Message, "/extra") {
		t.Fatalf("initialize with an unknown member answered %+v", f)
	}
	h.send(initializeFrame(2, "1"))
	if f := parseFrame(t, h.next()); f.Result == nil {
		t.Fatalf("a valid initialize after an invalid one: %+v", f)
	}
}

func TestHandshakeRefusals(t *testing.T) {
	t.Parallel()
	t.Run("blank identity", func(t *testing.T) {
		t.Parallel()
		h := sdktest.Start(t, &sdk.Plugin{}, sdktest.Options{NoHandshake: true})
		_, err := h.Initialize()
		wantReason(t, err, extproto.ReasonInternal)
		wantReason(t, h.WaitServed(), extproto.ReasonInternal)
	})
	t.Run("identity from options", func(t *testing.T) {
		t.Parallel()
		h := sdktest.Start(t, &sdk.Plugin{}, sdktest.Options{NoHandshake: true, Serve: sdk.Options{Name: "opt", Version: "2"}})
		res, err := h.Initialize()
		if err != nil || res.Name != "opt" || res.Version != "2" {
			t.Fatalf("initialize: %+v, %v", res, err)
		}
	})
	t.Run("OnInitialize refuses", func(t *testing.T) {
		t.Parallel()
		p := minimalPlugin()
		p.OnInitialize(func(context.Context, *extproto.InitializeParams) error { return errors.New("no workspace config") })
		h := sdktest.Start(t, p, sdktest.Options{NoHandshake: true})
		_, err := h.Initialize()
		if pe := wantReason(t, err, extproto.ReasonInternal); !strings.Contains(pe.Message, "no workspace config") {
			t.Errorf("message %q", pe.Message)
		}
		if err := h.WaitServed(); err == nil {
			t.Error("Serve returned nil after a refused handshake")
		}
	})
}
