package wire

import (
	"bufio"
	"errors"
	"io"
	"os"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// Line framing (PROTOCOL_DETAILS §1.1). The byte budget covers the whole
// line including its newline and is checked while reading: the reader
// never holds more than the budget plus one bufio buffer, however long
// the peer's line is.

// readBufSize is the bufio buffer. Frames that fit are returned without
// a copy; longer ones are assembled in the reader's reusable line buffer.
const readBufSize = 64 << 10

// retainLineBuf bounds the line buffer kept between frames, so one 8 MiB
// frame does not pin 8 MiB for the life of the connection.
const retainLineBuf = 1 << 20

type frameReader struct {
	br    *bufio.Reader
	limit int
	line  []byte
	// resume: line holds the start of a frame whose read was interrupted
	// by a deadline (a caller leaving the reading role); next goes on.
	resume bool
}

func newFrameReader(r io.Reader, limit int) *frameReader {
	return &frameReader{br: bufio.NewReaderSize(r, readBufSize), limit: limit}
}

// errFrameTooLarge builds the connection-fatal inbound error.
func errFrameTooLarge(limit int) error {
	return extproto.Errorf(extproto.ReasonFrameTooLarge, "wire: inbound frame exceeds the %d-byte frame limit", limit)
}

// next returns the next raw line without its newline (a final line at EOF
// may have none). The slice is valid until the following call. At EOF it
// returns io.EOF; a line over the budget returns a frame_too_large error.
func (fr *frameReader) next() ([]byte, error) {
	if !fr.resume {
		if cap(fr.line) > retainLineBuf {
			fr.line = nil
		}
		fr.line = fr.line[:0]
	}
	fr.resume = false
	for {
		chunk, err := fr.br.ReadSlice('\n')
		total := len(fr.line) + len(chunk)
		if total > fr.limit {
			return nil, errFrameTooLarge(fr.limit)
		}
		switch {
		case err == nil:
			chunk = chunk[:len(chunk)-1]
			if len(fr.line) == 0 {
				return chunk, nil
			}
			fr.line = append(fr.line, chunk...)
			return fr.line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			fr.line = append(fr.line, chunk...)
		case err == io.EOF && total > 0:
			// The final frame without a newline is still a frame; the
			// next call reports EOF.
			fr.line = append(fr.line, chunk...)
			return fr.line, nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			fr.line = append(fr.line, chunk...)
			fr.resume = len(fr.line) > 0
			return nil, err
		default:
			return nil, err
		}
	}
}

// trimFrame drops surrounding spaces and tabs and a trailing CR; a blank
// line becomes empty and is skipped by the caller.
func trimFrame(line []byte) []byte {
	for len(line) > 0 && (line[0] == ' ' || line[0] == '\t' || line[0] == '\r') {
		line = line[1:]
	}
	for n := len(line); n > 0 && (line[n-1] == ' ' || line[n-1] == '\t' || line[n-1] == '\r'); n = len(line) {
		line = line[:n-1]
	}
	return line
}
