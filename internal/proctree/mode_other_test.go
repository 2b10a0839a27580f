//go:build !linux

package proctree

import "testing"

// mode is the one way Start owns a tree outside Linux.
type mode int

func (mode) String() string { return "default" }

var ownModes = []mode{0}

func startOwned(_ mode, c Command) (*Tree, error) { return Start(c) }

func skipUnavailable(*testing.T, mode) {}
