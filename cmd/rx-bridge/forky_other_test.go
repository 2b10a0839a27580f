//go:build !unix

package main

import "testing"

// installForky: the forky tree (setsid, signals) exists only on Unix.
func installForky(t *testing.T, _ string) {
	t.Helper()
	t.Skip("the forky plugin's process tree needs a Unix system")
}
