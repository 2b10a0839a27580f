package bridge

import (
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/exthost/redact"
)

// Trace levels of $/setTrace.
const (
	traceOff int32 = iota
	traceMessages
	traceVerbose
)

// setTrace serves $/setTrace: "off", "messages" (LSP 3.17; go.lsp.dev
// spells it "message") or "verbose".
func (s *Server) setTrace(params []byte) {
	var p protocol.SetTraceParams
	if json.Unmarshal(params, &p) == nil {
		s.applyTrace(p.Value)
	}
}

// applyTrace sets the level from $/setTrace or initialize's trace.
func (s *Server) applyTrace(v protocol.TraceValue) {
	switch v {
	case protocol.TraceVerbose:
		s.trace.Store(traceVerbose)
	case protocol.TraceMessage, "messages":
		s.trace.Store(traceMessages)
	default:
		s.trace.Store(traceOff)
	}
}

// Directions of a traced frame: dirOut is bridge to plugin, dirIn plugin
// to bridge.
const (
	dirOut = "->"
	dirIn  = "<-"
)

// traceFrame sends $/logTrace for one message exchanged with a plugin:
// message `<plugin> <-|-> <method>`, and at verbose the redacted body.
// The extension host offers no frame tap, so what is traced is what
// passes through the bridge: UI requests and publishes, actions and
// submissions, and provider streams of rx/lm/chat.
func (s *Server) traceFrame(plugin, dir, method string, body any) {
	level := s.trace.Load()
	if level == traceOff {
		return
	}
	p := &protocol.LogTraceParams{Message: plugin + " " + dir + " " + method}
	if level == traceVerbose {
		p.Verbose = protocol.TraceValue(redact.String(rawJSON(body)))
	}
	s.notify("$/logTrace", p)
}

// traceAnswer traces the answer to a message traced with traceFrame.
func (s *Server) traceAnswer(plugin, method string, res any, err error) {
	if err != nil {
		s.traceFrame(plugin, answerDir(method), method+" error", map[string]string{"error": err.Error()})
		return
	}
	s.traceFrame(plugin, answerDir(method), method+" result", res)
}

// answerDir is the direction of the answer: host/* calls are answered by
// the bridge, extension/* calls by the plugin.
func answerDir(method string) string {
	if len(method) > 5 && method[:5] == "host/" {
		return dirOut
	}
	return dirIn
}
