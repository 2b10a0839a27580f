package bridge

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// inflight tracks the requests being served, so $/cancelRequest can stop
// one and teardown can stop them all.
type inflight struct {
	mu   sync.Mutex
	reqs map[jsonrpc2.ID]context.CancelFunc
}

func (f *inflight) init() { f.reqs = map[jsonrpc2.ID]context.CancelFunc{} }

// add registers a request; done must be called when it is answered.
func (f *inflight) add(parent context.Context, id jsonrpc2.ID) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	f.mu.Lock()
	f.reqs[id] = cancel
	f.mu.Unlock()
	return ctx, func() {
		cancel()
		f.mu.Lock()
		delete(f.reqs, id)
		f.mu.Unlock()
	}
}

func (f *inflight) cancel(id jsonrpc2.ID) {
	f.mu.Lock()
	c := f.reqs[id]
	f.mu.Unlock()
	if c != nil {
		c()
	}
}

func (f *inflight) cancelAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.reqs {
		c()
	}
}

// cancelRequest serves $/cancelRequest: the request is cancelled and
// answered -32800 (an agent prompt ends as cancelled instead). The id is
// read as JSON-RPC has it (an integer or a string); protocol.CancelParams
// would take only LSP's int32.
func (s *Server) cancelRequest(params []byte) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var n int64
	if json.Unmarshal(p.ID, &n) == nil {
		s.inflight.cancel(jsonrpc2.NewNumberID(n))
		return
	}
	var str string
	if json.Unmarshal(p.ID, &str) == nil {
		s.inflight.cancel(jsonrpc2.NewStringID(str))
	}
}

// promptCancels maps each session to the cancel functions of its prompts
// in flight, so rx/session/cancel can end a prompt that has not reached
// the agent yet.
type promptCancels struct {
	mu   sync.Mutex
	next int
	m    map[string]map[int]context.CancelFunc
}

// sessionIDOf is the sessionId member of a request's params, "" when
// they have none.
func sessionIDOf(params []byte) string {
	var ref struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(params, &ref) != nil {
		return ""
	}
	return ref.SessionID
}

// add derives the prompt's context and registers its cancel under the
// params' sessionId; forget unregisters it.
func (p *promptCancels) add(parent context.Context, params []byte) (context.Context, func()) {
	id := sessionIDOf(params)
	if id == "" {
		return parent, func() {}
	}
	ctx, cancel := context.WithCancel(parent)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]map[int]context.CancelFunc{}
	}
	if p.m[id] == nil {
		p.m[id] = map[int]context.CancelFunc{}
	}
	p.next++
	key := p.next
	p.m[id][key] = cancel
	return ctx, func() {
		cancel()
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.m[id], key)
		if len(p.m[id]) == 0 {
			delete(p.m, id)
		}
	}
}

// cancel ends every prompt in flight for sessionID.
func (p *promptCancels) cancel(sessionID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.m[sessionID] {
		c()
	}
}
