//go:build unix

package sdk

import (
	"os"
	"syscall"
)

// stdio returns a File for the standard stream f in the given mode, when
// f is a pipe or a socket; a terminal (someone running the binary by
// hand) is left alone, because the mode is shared with the shell.
//
// Stdout is made non-blocking, so Go's poller manages it and closing it
// interrupts a blocked write (a stream inherited in blocking mode cannot
// be interrupted).
//
// Stdin is made blocking (issue 20): the reading goroutine sleeps in
// read(2) and goes on by itself when a frame arrives, where a
// poller-managed read costs a failed read, an epoll_wait and a thread
// wake-up per frame (the sidecar's CPU per intercept fell from about 3×
// a raw echo child's to under 2×). The price: closing it does not
// interrupt a read in progress, so the connection's Close waits for the
// host to close its end, which every host does right after the shutdown
// answer and when our stdout closes; Serve does not wait for it.
func stdio(f *os.File, nonblocking bool) *os.File {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return f
	}
	if err := syscall.SetNonblock(fd, nonblocking); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
