//go:build unix

package wire

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
)

// errWouldBlock: the pipe has no room for (the rest of) the frame now.
var errWouldBlock = errors.New("wire: write would block")

// tryWriter writes to a non-blocking file descriptor without ever
// waiting: one write(2) per chunk, stopping at EAGAIN. It exists for the
// callers' direct path (write.go); it is used under wmu only, which also
// guards its fields, so the callback is allocated once.
type tryWriter struct {
	rc  syscall.RawConn
	fn  func(fd uintptr) bool
	buf []byte
	n   int
	err error
}

// newTryWriter returns a tryWriter for w when w is a pollable *os.File
// (an os.Pipe end, for example): only then is its descriptor non-blocking,
// so write(2) returns EAGAIN instead of waiting. Otherwise nil.
func newTryWriter(w io.Writer) *tryWriter {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	// SetWriteDeadline succeeds only on files in the runtime poller, which
	// are exactly the non-blocking ones.
	if f.SetWriteDeadline(time.Time{}) != nil {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	t := &tryWriter{rc: rc}
	t.fn = t.attempt
	return t
}

func (t *tryWriter) attempt(fd uintptr) bool {
	for {
		n, err := syscall.Write(int(fd), t.buf)
		if err == syscall.EINTR {
			continue
		}
		if n > 0 {
			t.n = n
		}
		t.err = err
		return true // never wait for writability: that is the writer's job
	}
}

// write writes as much of b as the pipe takes now.
func (t *tryWriter) write(b []byte) (int, error) {
	total := 0
	for len(b) > 0 {
		t.buf, t.n, t.err = b[:min(len(b), writeChunk)], 0, nil
		if err := t.rc.Write(t.fn); err != nil {
			return total, err
		}
		total += t.n
		b = b[t.n:]
		switch {
		case t.err == syscall.EAGAIN:
			t.buf = nil
			return total, errWouldBlock
		case t.err != nil:
			t.buf = nil
			return total, t.err
		}
	}
	t.buf = nil
	return total, nil
}
