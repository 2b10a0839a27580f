package wire

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Outbound encoding. Frames are assembled by hand into pooled buffers in
// the member order jsonrpc, id, method, params, result, error, with HTML
// escaping disabled (Reasonix's encoding, byte for byte). Only the params
// and result values go through encoding/json, each through an encoder
// that lives with its buffer so encoding allocates no encoder per frame.

// errParamsNotObject is returned for params that do not encode to a JSON
// object: the peer would refuse the frame (PROTOCOL_DETAILS §1.2 rule 5).
var errParamsNotObject = errors.New("params must encode to a JSON object")

// frameBuf is one outbound frame, newline included, from construction
// until the writer is done with it. The buffer is the queue element, so a
// frame costs no allocation beyond its pooled buffer.
type frameBuf struct {
	b    []byte
	enc  *json.Encoder
	scan scanner
	// state is generation<<2 | frameQueued/frameWriting/frameDropped. The
	// generation changes every time the buffer is queued, so a caller
	// dropping its cancelled frame can never drop a recycled buffer that
	// now carries someone else's frame.
	state atomic.Uint64
	// bestEffort frames hold a TryNotify slot until written or dropped.
	bestEffort bool
}

const (
	frameQueued uint64 = iota
	frameWriting
	frameDropped
	frameStateMask uint64 = 3
)

// queue marks the frame queued and returns the token that drop needs.
func (f *frameBuf) queue() uint64 {
	t := f.state.Load()&^frameStateMask + 4 // next generation, state frameQueued (0)
	f.state.Store(t)
	return t
}

// drop withdraws a frame the writer has not started; it reports whether
// the frame will now never be written.
func (f *frameBuf) drop(token uint64) bool {
	return f.state.CompareAndSwap(token, token&^frameStateMask|frameDropped)
}

// take is the writer claiming a frame; false means it was dropped.
func (f *frameBuf) take() bool {
	s := f.state.Load()
	return s&frameStateMask == frameQueued && f.state.CompareAndSwap(s, s&^frameStateMask|frameWriting)
}

// Write lets the encoder append straight into the frame.
func (f *frameBuf) Write(p []byte) (int, error) {
	f.b = append(f.b, p...)
	return len(p), nil
}

var bufPool = sync.Pool{New: func() any {
	f := &frameBuf{b: make([]byte, 0, 512)}
	f.enc = json.NewEncoder(f)
	f.enc.SetEscapeHTML(false)
	return f
}}

// maxPooledBuf keeps one huge frame from pinning megabytes in the pool.
// It holds a host/content/read answer (a page's base64 and its header),
// so paging an object reuses one buffer instead of allocating, and
// zeroing, 350 KB per page.
var maxPooledBuf = base64.StdEncoding.EncodedLen(extproto.ContentRefChunkBytes) + 16<<10

func getBuf() *frameBuf { return bufPool.Get().(*frameBuf) }

func putBuf(f *frameBuf) {
	if cap(f.b) > maxPooledBuf {
		return
	}
	f.b = f.b[:0]
	f.bestEffort = false
	bufPool.Put(f)
}

func (f *frameBuf) open(id int64, hasID bool) {
	f.b = append(f.b[:0], `{"jsonrpc":"2.0"`...)
	if hasID {
		f.b = append(f.b, `,"id":`...)
		f.b = strconv.AppendInt(f.b, id, 10)
	}
}

// request encodes a request (hasID) or a notification.
func (f *frameBuf) request(id int64, hasID bool, method string, params any) error {
	f.open(id, hasID)
	f.b = append(f.b, `,"method":`...)
	f.b = appendString(f.b, method)
	if raw, ok := params.(json.RawMessage); ok && raw == nil {
		params = nil // a nil raw message means no params, not null params
	}
	if params != nil {
		f.b = append(f.b, `,"params":`...)
		start := len(f.b)
		if err := f.value(params); err != nil {
			return err
		}
		if f.b[start] != '{' {
			return errParamsNotObject
		}
	}
	f.b = append(f.b, "}\n"...)
	return nil
}

// result encodes a success response; a nil result is JSON null.
func (f *frameBuf) result(id int64, result any) error {
	f.open(id, true)
	f.b = append(f.b, `,"result":`...)
	if err := f.value(result); err != nil {
		return err
	}
	f.b = append(f.b, "}\n"...)
	return nil
}

// errorResponse encodes an error response; hasID false writes "id":null.
func (f *frameBuf) errorResponse(id int64, hasID bool, w extproto.WireError) {
	f.open(id, hasID)
	if !hasID {
		f.b = append(f.b, `,"id":null`...)
	}
	f.b = append(f.b, `,"error":{"code":`...)
	f.b = strconv.AppendInt(f.b, int64(w.Code), 10)
	f.b = append(f.b, `,"message":`...)
	f.b = appendString(f.b, w.Message)
	if len(w.Data) > 0 {
		f.b = append(f.b, `,"data":`...)
		f.b = append(f.b, w.Data...)
	}
	f.b = append(f.b, "}}\n"...)
}

// value appends one JSON value. A json.RawMessage is validated and copied
// (compacted only if it contains a line break, which would split the
// frame); anything else goes through encoding/json.
func (f *frameBuf) value(v any) error {
	switch v := v.(type) {
	case nil:
		f.b = append(f.b, "null"...)
		return nil
	case json.RawMessage:
		if v == nil {
			f.b = append(f.b, "null"...) // as encoding/json marshals it
			return nil
		}
		raw := bytes.Trim(v, " \t\r\n")
		if !f.scan.valid(raw) {
			return errors.New("json.RawMessage is not one valid JSON value")
		}
		if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
			f.b = append(f.b, raw...)
			return nil
		}
		var c bytes.Buffer
		if err := json.Compact(&c, raw); err != nil {
			return err
		}
		f.b = append(f.b, c.Bytes()...)
		return nil
	case jsonAppender:
		start := len(f.b)
		b, err := v.AppendJSON(f.b)
		if err != nil {
			f.b = b[:start]
			return err
		}
		f.b = b
		return nil
	default:
		start := len(f.b)
		if err := f.enc.Encode(v); err != nil {
			f.b = f.b[:start]
			return err
		}
		f.b = f.b[:len(f.b)-1] // Encode's trailing newline
		return nil
	}
}

// appendString is encoding/json's string encoder with HTML escaping off:
// control characters escaped, invalid UTF-8 replaced by U+FFFD, U+2028
// and U+2029 escaped, everything else raw.
// jsonAppender is a value of ours that appends its own JSON (valid, one
// line, as encoding/json would write it) faster than reflection:
// extproto.ContentReadResult, whose page is a megabyte of base64, and
// extproto.StreamOpenParams, whose request is the whole history.
type jsonAppender interface {
	AppendJSON([]byte) ([]byte, error)
}

func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// wireError converts a handler's or gate's error into the JSON-RPC error
// object: a *extproto.Error keeps its code, message and data; anything
// else is the frozen internal error, so local details never reach the peer.
func wireError(err error) extproto.WireError {
	var pe *extproto.Error
	if errors.As(err, &pe) {
		return pe.Wire()
	}
	return extproto.NewError(extproto.ReasonInternal, "").Wire()
}

// tooLargeResponse is what a response that would exceed the frame limit
// becomes (PROTOCOL_DETAILS §1.1): no data.
var tooLargeResponse = extproto.WireError{Code: extproto.CodeInternal, Message: "response exceeds frame size limit"}

// busyResponse answers a request that finds every handler slot taken.
var busyResponse = extproto.WireError{Code: extproto.CodeServerBusy, Message: "server busy"}
