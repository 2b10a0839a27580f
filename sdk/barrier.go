package sdk

import (
	"errors"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The barrier (PROTOCOL_DETAILS §2.4, SDK mirror rules). It runs as the
// wire Gate, on the read loop, so it sees frames in wire order: a request
// that arrives right after extension/initialized is already admitted.

type phase = int32

const (
	// phaseNew: nothing received. Only initialize and shutdown are served.
	phaseNew phase = iota
	// phaseInitializing: initialize is being answered.
	phaseInitializing
	// phaseAnswered: initialize answered; waiting for initialized.
	phaseAnswered
	// phaseReady: the barrier is open.
	phaseReady
	// phaseStopping: shutdown received, or the handshake failed.
	phaseStopping
)

// errDropped drops a notification at the gate; it is never sent.
var errDropped = errors.New("sdk: notification outside the handshake barrier dropped")

func (s *server) gate(method string, notification bool) error {
	ph := s.phase.Load()
	if notification {
		if ph == phaseReady {
			return nil
		}
		if method == extproto.MethodInitialized && s.phase.CompareAndSwap(phaseAnswered, phaseReady) {
			s.opened.Store(true)
			return nil
		}
		return errDropped
	}
	switch method {
	case extproto.MethodShutdown:
		return nil
	case extproto.MethodInitialize:
		if s.phase.CompareAndSwap(phaseNew, phaseInitializing) {
			return nil
		}
		return extproto.NewError(extproto.ReasonProtocolError, "extension/initialize was already received")
	}
	switch ph {
	case phaseReady:
		return nil
	case phaseNew:
		return extproto.NewError(extproto.ReasonProtocolError, clip(method)+" before extension/initialize")
	case phaseStopping:
		return extproto.NewError(extproto.ReasonProtocolError, clip(method)+" after extension/shutdown")
	}
	return extproto.NewError(extproto.ReasonProtocolError, clip(method)+" before extension/initialized")
}

// clip bounds a host-supplied string quoted in a message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
