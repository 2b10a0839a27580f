package bridge

import (
	"context"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// services is what the extension host hands the sidecars' inbound UI
// traffic to. The hub applies the stale gate against the bound
// generation; the sidecar's own generation is checked here first, so a
// sidecar cannot stamp traffic with a generation it does not belong to.
func (s *Server) services() exthost.Services {
	return exthost.Services{
		UIPublish: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
			res, err := &extproto.UIPublishResult{Accepted: false}, error(nil)
			if p.Generation == sc.Generation {
				res, err = s.hub.Publish(editorui.ForSession(ctx, exthost.SessionOf(ctx)), sc.Plugin.ID, p)
			}
			return res, err
		},
		UIRequest: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
			res, err := &extproto.UIRequestResult{Cancelled: true}, error(nil)
			if p.Generation == sc.Generation {
				res, err = s.hub.Request(editorui.ForSession(ctx, exthost.SessionOf(ctx)), sc.Plugin.ID, p)
			}
			return res, err
		},
		OnCrash: func(sc *exthost.Sidecar, err error) {
			s.rt.status.update()
			s.pluginCrashed(sc, err)
			// The one place the stderr tail of a crash is logged; errors
			// and rx/plugins carry the one line.
			if crash, ok := sc.CrashInfo(); ok && crash.Stderr != "" {
				s.log.Error(redact.String(err.Error()), "stderr", crash.Stderr)
				return
			}
			s.log.Error(redact.String(err.Error()))
		},
	}
}

// pluginCrashed tells an rx/ editor, once per crash, that a plugin's
// sidecar is gone (rx/pluginStateChanged): the editor marks the plugin
// and offers the reload that brings it back (a crashed sidecar is never
// restarted on its own).
func (s *Server) pluginCrashed(sc *exthost.Sidecar, err error) {
	if s.client.rx == nil {
		return
	}
	ch := rxproto.PluginStateChange{Plugin: sc.Plugin.ID, Generation: sc.Generation, State: stateCrashed,
		Reason: redact.String(err.Error()), Recover: crashRecover(sc.Plugin.ID)}
	if crash, ok := sc.CrashInfo(); ok {
		ch.Reason, ch.Since = redact.String(crash.Err.Error()), crash.At.UTC().Format(time.RFC3339Nano)
	}
	s.notify(rxproto.MethodPluginStateChanged, ch)
}
