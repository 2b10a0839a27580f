// Package lspframe is the LSP base protocol framing the bridge speaks on
// stdio: `Content-Length` headers, then exactly that many bytes of JSON,
// and the payload codec of the bridge's connections. It implements
// go.lsp.dev/jsonrpc2's Stream with the bounds that package's own stream
// lacks: a capped body (go.lsp.dev/jsonrpc2 v1 accepts up to 1 GiB), capped
// header lines and header blocks (v1 reads a header line without bound),
// and a well-framed body that is not a JSON-RPC message answered with an
// error response instead of ending the connection (v1 ends it, unanswered).
//
// It never interprets a message beyond decoding it with jsonrpc2, and it
// serialises every write (messages and its own error answers) so frames
// never interleave. Done tells when the peer's input ended, which
// jsonrpc2.Conn.Done only says once every handler has returned.
package lspframe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Limits of one inbound frame.
const (
	// DefaultMaxBody is the largest body accepted (64 MiB).
	DefaultMaxBody = 64 << 20
	// MaxHeaderLine bounds one header line, MaxHeaderBlock all of them.
	MaxHeaderLine  = 4 << 10
	MaxHeaderBlock = 16 << 10
)

// ErrFraming is wrapped by every error after which no later frame can be
// found: a malformed or missing Content-Length, an oversized header or
// body, or a body cut short. The connection must end.
var ErrFraming = errors.New("lsp framing lost")

// Options configure a Stream.
type Options struct {
	// MaxBody is the largest accepted body; 0 means DefaultMaxBody.
	MaxBody int
	// OnRead and OnWrite, if set, see every body read or written (for
	// traces). They must not retain the slice.
	OnRead, OnWrite func(body []byte)
	// OnDrop, if set, is told about each well-framed body that was not a
	// message and was skipped, with the reason.
	OnDrop func(body []byte, err error)
}

// Stream is a jsonrpc2.Stream over a reader and a writer.
type Stream struct {
	in    *bufio.Reader
	out   io.Writer
	close func() error
	opts  Options

	wmu  sync.Mutex
	buf  []byte
	body []byte

	ended   chan struct{}
	endOnce sync.Once
	endErr  error
}

var _ jsonrpc2.Stream = (*Stream)(nil)

// New returns a stream reading r and writing w; Close calls closer (which
// may be nil).
func New(r io.Reader, w io.Writer, closer func() error, opts Options) *Stream {
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if closer == nil {
		closer = func() error { return nil }
	}
	return &Stream{in: bufio.NewReaderSize(r, 64<<10), out: w, close: closer, opts: opts, ended: make(chan struct{})}
}

// Done is closed once Read has returned its last error: the input ended
// (io.EOF), its framing was lost, or the stream was closed.
func (s *Stream) Done() <-chan struct{} { return s.ended }

// Err is the error that ended the input, once Done is closed.
func (s *Stream) Err() error {
	select {
	case <-s.ended:
		return s.endErr
	default:
		return nil
	}
}

func (s *Stream) end(err error) {
	s.endOnce.Do(func() {
		s.endErr = err
		close(s.ended)
	})
}

// Read returns the next message. A body that is well framed but not a
// JSON-RPC 2.0 message is answered on the stream with a parse error (-32700)
// or an invalid request (-32600) and skipped. io.EOF at a frame boundary is
// returned as is; every other end is an error wrapping ErrFraming.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			s.end(err)
			return nil, total, err
		}
		body, n, err := s.ReadFrame()
		total += n
		if err != nil {
			if errors.Is(err, ErrFraming) {
				s.answer(nil, jsonrpc2.ParseError, err.Error())
			}
			s.end(err)
			return nil, total, err
		}
		if s.opts.OnRead != nil {
			s.opts.OnRead(body)
		}
		msg, code, err := decode(body)
		if err == nil {
			return msg, total, nil
		}
		if s.opts.OnDrop != nil {
			s.opts.OnDrop(body, err)
		}
		// A broken response is dropped, never answered: answering the
		// peer's answer could ping-pong forever.
		if !isResponse(body) {
			s.answer(requestID(body), code, err.Error())
		}
	}
}

// ReadFrame reads one frame and returns its body. It allocates the body
// only once the header has been read in full and the length checked
// against the limit.
func (s *Stream) ReadFrame() ([]byte, int64, error) {
	length, n, err := s.readHeader()
	if err != nil {
		return nil, n, err
	}
	body := make([]byte, length)
	m, err := io.ReadFull(s.in, body)
	n += int64(m)
	if err != nil {
		return nil, n, fmt.Errorf("%w: body ended after %d of %d bytes: %v", ErrFraming, m, length, err)
	}
	return body, n, nil
}

// readHeader reads header lines up to the empty line and returns the
// Content-Length.
func (s *Stream) readHeader() (int, int64, error) {
	var n int64
	length := -1
	for lines := 0; ; lines++ {
		line, err := s.readLine()
		n += int64(len(line))
		if err != nil {
			if errors.Is(err, io.EOF) && n == 0 {
				return 0, n, io.EOF
			}
			return 0, n, fmt.Errorf("%w: header: %v", ErrFraming, err)
		}
		if n > MaxHeaderBlock {
			return 0, n, fmt.Errorf("%w: header longer than %d bytes", ErrFraming, MaxHeaderBlock)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if lines == 0 {
				// Tolerate stray blank lines between frames.
				n = 0
				lines = -1
				continue
			}
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, n, fmt.Errorf("%w: header line %q has no colon", ErrFraming, clip(line))
		}
		if !strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			continue // Content-Type and unknown headers are ignored
		}
		v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || v < 0 {
			return 0, n, fmt.Errorf("%w: invalid Content-Length %q", ErrFraming, clip(value))
		}
		if v > int64(s.opts.MaxBody) {
			return 0, n, fmt.Errorf("%w: Content-Length %d exceeds the limit of %d bytes", ErrFraming, v, s.opts.MaxBody)
		}
		length = int(v)
	}
	if length < 0 {
		return 0, n, fmt.Errorf("%w: missing Content-Length header", ErrFraming)
	}
	return length, n, nil
}

// readLine reads one line of at most MaxHeaderLine bytes.
func (s *Stream) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := s.in.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > MaxHeaderLine {
			return string(b), fmt.Errorf("header line longer than %d bytes", MaxHeaderLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			if len(b) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return string(b), err
		}
		return string(b), nil
	}
}

// decode turns a body into a message, or says which error code answers it.
func decode(body []byte) (jsonrpc2.Message, jsonrpc2.Code, error) {
	if !json.Valid(body) {
		return nil, jsonrpc2.ParseError, errors.New("parse error: the message body is not JSON")
	}
	var probe struct {
		JSONRPC *string `json:"jsonrpc"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, jsonrpc2.InvalidRequest, errors.New("invalid request: the message is not a JSON object")
	}
	if probe.JSONRPC == nil || *probe.JSONRPC != jsonrpc2.Version {
		return nil, jsonrpc2.InvalidRequest, errors.New(`invalid request: "jsonrpc" must be "2.0"`)
	}
	msg, err := jsonrpc2.DecodeMessage(body)
	if err != nil {
		return nil, jsonrpc2.InvalidRequest, fmt.Errorf("invalid request: %v", err)
	}
	return msg, 0, nil
}

// isResponse reports whether body is a JSON object without a method: a
// response, or what is left of one.
func isResponse(body []byte) bool {
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) != nil {
		return false
	}
	_, hasMethod := probe["method"]
	return !hasMethod
}

// requestID returns the raw id of a body that has one, else nil.
func requestID(body []byte) json.RawMessage {
	var probe struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &probe) != nil {
		return nil
	}
	id := bytes.TrimSpace(probe.ID)
	if len(id) == 0 || (id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9')) {
		return nil
	}
	return id
}

// answer writes an error response; id nil is written as null.
func (s *Stream) answer(id json.RawMessage, code jsonrpc2.Code, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    jsonrpc2.Code `json:"code"`
		Message string        `json:"message"`
	}
	body, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{jsonrpc2.Version, id, wireError{Code: code, Message: msg}})
	if err == nil {
		_, _ = s.writeBody(body)
	}
}

// Write sends one message as one frame in a single write.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.body = jsonrpc2.AppendMessage(s.body[:0], msg)
	n, err := s.writeLocked(s.body)
	if cap(s.body) > 1<<20 {
		s.body = nil // do not pin one huge frame's buffer
	}
	return n, err
}

func (s *Stream) writeBody(body []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.writeLocked(body)
}

func (s *Stream) writeLocked(body []byte) (int64, error) {
	if s.opts.OnWrite != nil {
		s.opts.OnWrite(body)
	}
	s.buf = append(s.buf[:0], "Content-Length: "...)
	s.buf = strconv.AppendInt(s.buf, int64(len(body)), 10)
	s.buf = append(s.buf, "\r\n\r\n"...)
	s.buf = append(s.buf, body...)
	n, err := s.out.Write(s.buf)
	if cap(s.buf) > 1<<20 {
		s.buf = nil // do not pin one huge frame's buffer
	}
	return int64(n), err
}

// Close closes the underlying connection.
func (s *Stream) Close() error {
	err := s.close()
	s.end(io.EOF)
	return err
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
