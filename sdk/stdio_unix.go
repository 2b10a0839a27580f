//go:build unix

package sdk

import (
	"os"
	"syscall"
)

// pollableStdio returns a File for f's descriptor that Go's poller
// manages, so that closing it interrupts a blocked write: a standard
// stream inherited in blocking mode cannot be interrupted. Only pipes and
// sockets are switched to non-blocking mode; a terminal (someone running
// the binary by hand) is left alone, because the mode is shared with the
// shell.
func pollableStdio(f *os.File) *os.File {
	fd := int(f.Fd())
	if !pipeOrSocket(fd) {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

// blockingStdin returns a File reading f's descriptor with plain blocking
// read(2) calls (issue 20): the reading goroutine sleeps in the kernel
// and goes on by itself when a frame arrives, where a poller-managed read
// costs a failed read, an epoll_wait and a thread wake-up per frame (the
// sidecar's CPU per intercept fell from about 3× a raw echo child's to
// under 2×). The price: closing it does not interrupt a read in progress,
// so the connection's Close waits for the host to close its end — which
// every host does right after the shutdown answer, and when our stdout
// closes; Serve's teardown bounds the wait by closeGrace.
func blockingStdin(f *os.File) *os.File {
	fd := int(f.Fd())
	if !pipeOrSocket(fd) {
		return f
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}

func pipeOrSocket(fd int) bool {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return false
	}
	mode := st.Mode & syscall.S_IFMT
	return mode == syscall.S_IFIFO || mode == syscall.S_IFSOCK
}
