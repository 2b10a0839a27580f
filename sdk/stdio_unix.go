//go:build unix

package sdk

import (
	"os"
	"syscall"
)

// pollableStdio returns a File for f's descriptor that Go's poller
// manages, so that closing it interrupts a blocked read or write: a
// standard stream inherited in blocking mode cannot be interrupted, and
// Serve could not return on shutdown while the host keeps its end open.
// Only pipes and sockets are switched to non-blocking mode; a terminal
// (someone running the binary by hand) is left alone, because the mode is
// shared with the shell.
func pollableStdio(f *os.File) *os.File {
	fd := int(f.Fd())
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return f
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
