//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// echoOff turns off the echo of the terminal f, so a typed key is not
// shown; restore puts the terminal back. ok is false when f is no
// terminal (or its mode cannot be changed): the input is then shown.
func echoOff(f *os.File) (restore func(), ok bool) {
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return func() {}, false
	}
	old := *t
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	t.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, t); err != nil {
		return func() {}, false
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, &old) }, true
}
