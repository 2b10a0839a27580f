package bridge

import (
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// phase is where the LSP lifecycle is.
type phase int

const (
	phaseNew         phase = iota // before initialize
	phaseInitialized              // initialize answered
	phaseShutdown                 // shutdown received
)

// lifecycle applies the LSP rules to every request: nothing but
// initialize before it, initialize once, nothing after shutdown.
type lifecycle struct {
	mu    sync.Mutex
	phase phase
}

// admit says whether a request may run now, as the error to answer it
// with. An admitted initialize or shutdown moves the phase on at once, so
// the next message already sees it.
func (l *lifecycle) admit(method string) *jsonrpc2.Error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch l.phase {
	case phaseNew:
		if method != "initialize" {
			return jsonrpc2.NewError(codeServerNotInitialized, "the server is not initialized: send initialize first")
		}
		l.phase = phaseInitialized
	case phaseInitialized:
		switch method {
		case "initialize":
			return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize may be sent only once")
		case "shutdown":
			l.phase = phaseShutdown
		}
	case phaseShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shut down: only exit is accepted")
	}
	return nil
}

// initialized reports whether initialize was answered (notifications
// before it are dropped).
func (l *lifecycle) initialized() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase >= phaseInitialized
}

// shutDown reports whether shutdown was received: exit then ends with
// status 0, else 1.
func (l *lifecycle) shutDown() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.phase == phaseShutdown
}

// failedInitialize undoes the phase change of an initialize that was
// answered with an error, so the client may try again and nothing runs on
// a half-set-up server.
func (l *lifecycle) failedInitialize() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.phase == phaseInitialized {
		l.phase = phaseNew
	}
}
