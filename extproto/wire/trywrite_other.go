//go:build !unix

package wire

import (
	"errors"
	"io"
)

var errWouldBlock = errors.New("wire: write would block")

// tryWriter is unavailable here: callers write directly only when their
// context can never end (see write.go).
type tryWriter struct{}

func newTryWriter(io.Writer) *tryWriter { return nil }

func (*tryWriter) write([]byte) (int, error) { return 0, errWouldBlock }
