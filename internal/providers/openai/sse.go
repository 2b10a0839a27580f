package openai

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEventBytes bounds one server-sent event (all its data lines together),
// so a server that never sends a blank line cannot grow memory without
// limit. The frame cap of the extension protocol is a natural ceiling: a
// single chunk larger than that could not be relayed anyway.
const maxEventBytes = 8 << 20

// errEventTooLarge reports an event over maxEventBytes.
var errEventTooLarge = fmt.Errorf("server-sent event exceeds %d bytes", maxEventBytes)

// sseEvent is one dispatched server-sent event. Only the fields the
// chat-completions stream uses are kept: id and retry are ignored.
type sseEvent struct {
	// Event is the `event:` field, empty for the default "message" type.
	Event string
	// Data is the `data:` lines joined with "\n".
	Data string
}

// sseReader parses the text/event-stream format (WHATWG HTML §9.2) from r:
// lines end in LF, CRLF or CR; a blank line dispatches the event; lines
// starting with ':' are comments (servers use them as keep-alives).
type sseReader struct {
	r *bufio.Reader
	// pendingCR is set when the previous line ended in a bare CR whose
	// following byte has not been seen yet, so a leading LF of the next read
	// belongs to that CRLF and is not an empty line.
	pendingCR bool
	line      []byte
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// next returns the next event. At the end of input it returns io.EOF when
// the stream ended on a line boundary and io.ErrUnexpectedEOF when it was
// cut inside a line. A complete event that lacks only its final blank line
// is still dispatched before the EOF: several servers close the connection
// right after `data: [DONE]\n`.
func (s *sseReader) next() (sseEvent, error) {
	var (
		ev      sseEvent
		data    []byte
		hasData bool
		size    int
	)
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				ev.Data = string(data)
				return ev, nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !hasData {
				// A blank line with no data resets the event type and
				// dispatches nothing.
				ev = sseEvent{}
				continue
			}
			ev.Data = string(data)
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, found := bytes.Cut(line, []byte{':'})
		if found && len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "data":
			size += len(value) + 1
			if size > maxEventBytes {
				return sseEvent{}, errEventTooLarge
			}
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			ev.Event = string(value)
		}
	}
}

// readLine returns the next line without its terminator. The slice is
// valid until the next call. io.EOF means input ended exactly on a line
// boundary; io.ErrUnexpectedEOF means it ended inside a line.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		b, err := s.r.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if len(s.line) > 0 {
					return nil, io.ErrUnexpectedEOF
				}
				return nil, io.EOF
			}
			return nil, err
		}
		if s.pendingCR {
			s.pendingCR = false
			if b == '\n' {
				continue
			}
		}
		switch b {
		case '\n':
			return s.line, nil
		case '\r':
			s.pendingCR = true
			return s.line, nil
		}
		if len(s.line) >= maxEventBytes {
			return nil, errEventTooLarge
		}
		s.line = append(s.line, b)
	}
}
