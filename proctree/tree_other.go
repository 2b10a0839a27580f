//go:build !linux && !darwin && !windows

package proctree

import (
	"fmt"
	"os"
	"runtime"
)

// sysTree has no implementation on this system: a program's whole tree
// could not be owned, so none is started.
type sysTree struct{}

func (sysTree) kill() {}

func start(string, []string, []string, *os.File, *os.File, *os.File) (*Tree, error) {
	return nil, fmt.Errorf("%w on %s: starting it is refused", ErrUnavailable, runtime.GOOS)
}
