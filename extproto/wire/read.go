package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// The read loop: framing, envelope validation, the gate, and dispatch.
// Nothing here waits for a handler: notifications go to the ordered
// worker, responses to the waiting caller, and requests to the goroutine
// that read them (serve.go).

// readUntilRequest reads and dispatches frames until one is a request to
// serve (readServe), reading is over (readOver), or, when callers read
// their own answers, an answer was delivered and the role parked for the
// next caller (readParked, lead.go).
func (c *Conn) readUntilRequest(st *readState) (request, readOutcome) {
	for {
		line, err := st.fr.next()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && c.rd != nil {
				// A caller's interrupt that outlived its lead: harmless.
				_ = c.rd.SetReadDeadline(time.Time{})
				continue
			}
			c.readFailed(err)
			return request{}, readOver
		}
		line = trimFrame(line)
		if len(line) == 0 {
			continue
		}
		c.traceFrame(true, line)
		req, kind, more := c.dispatch(st.p, line)
		switch {
		case !more:
			return request{}, readOver
		case kind == kindRequest:
			return req, readServe
		case kind == kindResponse && c.role != nil:
			c.park(st)
			return request{}, readParked
		}
	}
}

type readOutcome uint8

const (
	readServe readOutcome = iota
	readOver
	readParked
)

func (c *Conn) readFailed(err error) {
	select {
	case <-c.done:
		return // we closed r ourselves
	default:
	}
	if errors.Is(err, io.EOF) {
		// The peer is gone, but what it sent before leaving still counts:
		// a stream's last chunk and its end must not be lost to a race
		// with EOF. Let the worker finish the queue first.
		if c.notifications != nil {
			close(c.notifications)
		}
		<-c.notifyDone
		c.fail(fmt.Errorf("wire: peer closed the connection: %w", io.EOF), true)
		return
	}
	if extproto.ReasonOf(err) == extproto.ReasonFrameTooLarge {
		c.fail(err, false)
		return
	}
	c.fail(fmt.Errorf("wire: read: %w", err), false)
}

// dispatch handles one frame. kind is kindRequest when req is to be
// served, kindResponse when an answer was delivered after which the
// reading role may park (deliver), kindNotification for any other inbound
// frame; more false stops reading.
func (c *Conn) dispatch(p *parser, line []byte) (req request, k kind, more bool) {
	m, rej, ok := p.parse(line)
	if !ok {
		c.reject(rej)
		return req, kindNotification, true
	}
	if m.kind == kindResponse {
		if !c.deliver(m) {
			return req, kindNotification, true // nothing to park for
		}
		return req, kindResponse, true
	}
	notify := m.kind == kindNotification
	if c.opts.Gate != nil {
		if err := c.opts.Gate(m.method, notify); err != nil {
			return req, kindNotification, c.gated(m, err)
		}
	}
	if notify {
		if c.opts.Skip != nil && c.opts.Skip(m.method, m.params) {
			return req, kindNotification, true
		}
		c.queueNotification(m)
		return req, kindNotification, true
	}
	if int(c.handlers.Add(1)) > c.opts.MaxHandlers {
		c.handlers.Add(-1)
		c.opts.Logger.Warn("wire: request refused, every handler is busy", "method", m.method, "id", m.id, "limit", c.opts.MaxHandlers)
		c.respondError(m.id, true, busyResponse)
		return req, kindNotification, true
	}
	return request{id: m.id, method: m.method, params: clone(m.params)}, kindRequest, true
}

// reject answers a frame that failed envelope validation. None of these
// answers carries data and none closes the connection.
func (c *Conn) reject(r rejection) {
	msg := msgInvalidRequest
	if r.code == extproto.CodeParseError {
		msg = msgParseError
	}
	c.opts.Logger.Debug("wire: frame rejected", "code", r.code, "why", r.why)
	if r.failPending {
		if pc := c.take(r.id); pc != nil {
			pc.ch <- reply{err: extproto.Errorf(extproto.ReasonProtocolError, "wire: call %q (id %d): malformed response: %s", pc.method, pc.id, r.why)}
		}
	}
	c.respondError(r.id, r.echo, extproto.WireError{Code: r.code, Message: msg})
}

// gated handles a gate rejection: answer a request, drop a notification,
// and end the connection if the verdict is fatal.
func (c *Conn) gated(m message, err error) bool {
	var fatal *fatalError
	isFatal := errors.As(err, &fatal)
	if isFatal {
		err = fatal.err
	}
	c.opts.Logger.Info("wire: gate refused inbound frame", "method", m.method, "notification", m.kind == kindNotification, "fatal", isFatal, "err", err)
	if m.kind == kindRequest {
		c.respondError(m.id, true, wireError(err))
	}
	if isFatal {
		c.fail(err, true)
		return false
	}
	return true
}

// deliver hands a response to its caller. It reports whether a caller
// was answered that leaves the reading role to be parked for the next
// call (lead.go): not a call marked HandBack, not an unmatched response.
func (c *Conn) deliver(m message) bool {
	if m.nullID {
		c.unmatched(UnmatchedResponse{Null: true, Err: remoteError(m)})
		return false
	}
	pc := c.take(m.id)
	if pc == nil {
		u := UnmatchedResponse{ID: m.id, Late: m.id >= 1 && m.id <= c.nextID.Load()}
		if m.hasError {
			u.Err = remoteError(m)
		}
		c.unmatched(u)
		return false
	}
	park := !pc.handBack
	if m.hasError {
		pc.ch <- reply{err: remoteError(m)}
		return park
	}
	pc.ch <- reply{result: clone(m.result)}
	return park
}

func (c *Conn) unmatched(u UnmatchedResponse) {
	c.opts.Logger.Debug("wire: response matches no pending call", "id", u.ID, "null", u.Null, "late", u.Late)
	if c.opts.OnUnmatched != nil {
		c.opts.OnUnmatched(u)
	}
}

// remoteError converts a response's error object; data is trusted only as
// extproto.FromWire allows.
func remoteError(m message) *extproto.Error {
	msg, _ := unquote(m.errMessage)
	return extproto.FromWire(extproto.WireError{Code: int(m.errCode), Message: msg, Data: clone(m.errData)})
}

func (c *Conn) queueNotification(m message) {
	if c.notifications == nil {
		return
	}
	select {
	case c.notifications <- notification{method: m.method, params: clone(m.params)}:
		return
	default:
	}
	if c.opts.NotifyOverflow == DropOnOverflow {
		c.opts.Logger.Warn("wire: notification dropped, queue full", "method", m.method, "limit", c.opts.NotifyQueue)
		return
	}
	c.fail(fmt.Errorf("%w (limit %d, method %q)", ErrNotificationOverflow, c.opts.NotifyQueue, m.method), false)
}

func (c *Conn) notifyLoop() {
	defer c.wg.Done()
	defer close(c.notifyDone)
	for {
		select {
		case n, ok := <-c.notifications:
			if !ok {
				return
			}
			c.notifyOne(n)
		case <-c.done:
			return
		}
	}
}

func (c *Conn) notifyOne(n notification) {
	defer func() {
		if v := recover(); v != nil {
			c.opts.Logger.Error("wire: notification handler panicked", "method", n.method, "panic", v, "stack", string(debug.Stack()))
		}
	}()
	c.opts.NotifyHandler(c.ctx, n.method, n.params)
}

// serve runs one request handler and sends its answer.
func (c *Conn) serve(ctx context.Context, req request) {
	id, method := req.id, req.method
	result, err := c.runHandler(ctx, method, req.params)
	f := getBuf()
	if err != nil {
		f.errorResponse(id, true, wireError(err))
	} else if eerr := f.result(id, result); eerr != nil {
		c.opts.Logger.Error("wire: cannot encode result", "method", method, "id", id, "err", eerr)
		f.errorResponse(id, true, extproto.NewError(extproto.ReasonInternal, "").Wire())
	}
	if len(f.b) > c.opts.MaxFrameBytes {
		c.opts.Logger.Warn("wire: response over the frame limit replaced by an error", "method", method, "id", id, "bytes", len(f.b))
		f.errorResponse(id, true, tooLargeResponse)
	}
	c.sendDirect(f)
}

func (c *Conn) runHandler(ctx context.Context, method string, params json.RawMessage) (result any, err error) {
	defer func() {
		if v := recover(); v != nil {
			c.opts.Logger.Error("wire: request handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
			result, err = nil, extproto.NewError(extproto.ReasonInternal, "")
		}
	}()
	if c.opts.Handler == nil {
		return nil, extproto.NewError(extproto.ReasonUnknownMethod, "method not found: "+method)
	}
	result, err = c.opts.Handler(ctx, method, params)
	if err != nil {
		var pe *extproto.Error
		if !errors.As(err, &pe) {
			c.opts.Logger.Warn("wire: request handler failed", "method", method, "err", err)
		}
	}
	return result, err
}

// respondError queues an error answer from the read loop.
func (c *Conn) respondError(id int64, hasID bool, w extproto.WireError) {
	f := getBuf()
	f.errorResponse(id, hasID, w)
	_ = c.send(context.Background(), f) // fails only when the connection is gone
}

// clone copies a span out of the read buffer; nil stays nil. make then
// copy is the one form the compiler allocates without zeroing first: a
// content page's answer is 350 KB.
func clone(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	c := make(json.RawMessage, len(b))
	copy(c, b)
	return c
}
