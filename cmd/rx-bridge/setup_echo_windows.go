package main

import (
	"os"

	"golang.org/x/sys/windows"
)

// echoOff turns off the echo of the console f, so a typed key is not
// shown; restore puts the console back. ok is false when f is no console:
// the input is then shown.
func echoOff(f *os.File) (restore func(), ok bool) {
	h := windows.Handle(f.Fd())
	var mode uint32
	if err := windows.GetConsoleMode(h, &mode); err != nil {
		return func() {}, false
	}
	if err := windows.SetConsoleMode(h, mode&^windows.ENABLE_ECHO_INPUT|windows.ENABLE_LINE_INPUT|windows.ENABLE_PROCESSED_INPUT); err != nil {
		return func() {}, false
	}
	return func() { _ = windows.SetConsoleMode(h, mode) }, true
}
