//go:build !linux && !darwin && !windows

package proctree

import (
	"fmt"
	"runtime"
)

// sysTree has no implementation on this system: a program's whole tree
// could not be owned, so none is started.
type sysTree struct{}

func (sysTree) kill() {}

func start(Command) (*Tree, error) {
	return nil, fmt.Errorf("%w on %s: starting it is refused", ErrUnavailable, runtime.GOOS)
}
