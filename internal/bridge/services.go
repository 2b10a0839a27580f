package bridge

import (
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/bridge/rxproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// onCrash is told of a sidecar that crashed (the engine hands the
// sidecars' UI traffic to the hub).
func (s *Server) onCrash(sc *exthost.Sidecar, err error) {
	s.rt.status.update()
	s.pluginCrashed(sc, err)
	// The one place the stderr tail of a crash is logged; errors and
	// rx/plugins carry the one line.
	if crash, ok := sc.CrashInfo(); ok && crash.Stderr != "" {
		s.log.Error(redact.String(err.Error()), "stderr", crash.Stderr)
		return
	}
	s.log.Error(redact.String(err.Error()))
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
		ch.Reason, ch.Since = redact.String(extproto.Plain(crash.Err)), crash.At.UTC().Format(time.RFC3339Nano)
	}
	s.notify(rxproto.MethodPluginStateChanged, ch)
}
