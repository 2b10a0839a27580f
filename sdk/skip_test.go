package sdk

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The read loop drops the notifications no callback would see, so an
// intercept's follow-up event does not wake the notification worker of a
// plugin that observes nothing.
func TestSkipUnobservedNotifications(t *testing.T) {
	t.Parallel()
	observe := func(points ...extproto.HookPoint) *Plugin {
		p := &Plugin{}
		for _, pt := range points {
			p.OnEvent(pt, func(context.Context, *Call) {})
		}
		return p
	}
	event := func(pt extproto.HookPoint) json.RawMessage {
		return json.RawMessage(`{"event":"` + string(pt) + `","payload":{"text":"x"}}`)
	}
	withResources := &Plugin{}
	withResources.OnResourcesChanged(func(context.Context, []string) {})
	for _, tc := range []struct {
		name   string
		p      *Plugin
		method string
		params json.RawMessage
		skip   bool
	}{
		{"no observer", observe(), extproto.MethodEvent, event(extproto.InputReceive), true},
		{"observed point", observe(extproto.InputReceive), extproto.MethodEvent, event(extproto.InputReceive), false},
		{"other point", observe(extproto.InputReceive), extproto.MethodEvent, event(extproto.ToolBefore), true},
		{"any point", observe(AnyPoint), extproto.MethodEvent, event(extproto.ToolBefore), false},
		{"malformed, left to the strict decode", observe(extproto.InputReceive), extproto.MethodEvent, json.RawMessage(`{"event":1}`), false},
		{"resources, nobody watches", observe(), extproto.MethodResourcesChanged, json.RawMessage(`{"paths":["a"]}`), true},
		{"resources watched", withResources, extproto.MethodResourcesChanged, json.RawMessage(`{"paths":["a"]}`), false},
		{"initialized", observe(), extproto.MethodInitialized, json.RawMessage(`{}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(tc.p, Options{})
			if got := s.skip(tc.method, tc.params); got != tc.skip {
				t.Errorf("skip = %v, want %v", got, tc.skip)
			}
		})
	}
}
