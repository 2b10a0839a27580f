//go:build !linux

package exthost

import (
	"errors"
	"os"
	"runtime"
)

// procTree has no implementation on this system yet: a sidecar's whole
// tree could not be owned (see process.go), so none is started.
type procTree struct{}

func startTree(string, []string, []string, *os.File, *os.File, *os.File) (*procTree, error) {
	return nil, errors.New("starting extension sidecars is not supported on " + runtime.GOOS + " yet")
}

func (*procTree) kill()                   {}
func (*procTree) exited() <-chan struct{} { return nil }
func (*procTree) status() string          { return "" }
func (*procTree) pid() int                { return 0 }
