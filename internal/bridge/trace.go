package bridge

import (
	"bytes"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Trace levels of $/setTrace.
const (
	traceOff int32 = iota
	traceMessages
	traceVerbose
)

// setTrace serves $/setTrace: "off", "messages" or "verbose".
func (s *Server) setTrace(params []byte) {
	var p protocol.SetTraceParams
	if protocol.Unmarshal(params, &p) == nil {
		s.applyTrace(p.Value)
	}
}

// applyTrace sets the level from $/setTrace or initialize's trace; any
// other value is off.
func (s *Server) applyTrace(v protocol.TraceValue) {
	switch v {
	case protocol.TraceValueVerbose:
		s.trace.Store(traceVerbose)
	case protocol.TraceValueMessages:
		s.trace.Store(traceMessages)
	default:
		s.trace.Store(traceOff)
	}
}

// traceWire sends $/logTrace for one frame exchanged with a plugin
// sidecar (the extension host's frame tap): message
// `<plugin> <-|-> <method> id=<id>` (`<-` plugin to bridge), a response
// as `<plugin> <-|-> result id=<id>` or `error id=<id>`, and at verbose
// the whole frame, redacted structurally (redact.JSON), so it is still
// the JSON it was. With tracing off it costs one atomic load.
func (s *Server) traceWire(plugin string, inbound bool, frame []byte) {
	level := s.trace.Load()
	if level == traceOff {
		return
	}
	dir := "->"
	if inbound {
		dir = "<-"
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(frame, &env)
	what := env.Method
	switch {
	case what != "":
	case env.Error != nil:
		what = "error"
	default:
		what = "result"
	}
	msg := plugin + " " + dir + " " + what
	if len(env.ID) > 0 && string(env.ID) != "null" {
		msg += " id=" + string(env.ID)
	}
	p := &protocol.LogTraceParams{Message: redact.String(msg)}
	if level == traceVerbose {
		verbose := string(redact.JSON(bytes.TrimSpace(frame)))
		p.Verbose = &verbose
	}
	s.notify("$/logTrace", p)
}
