//go:build !unix

package tools

import "os/exec"

// ownGroup kills only the process itself where process groups do not
// exist; exec.CommandContext's default does that.
func ownGroup(*exec.Cmd) {}

// killGroup has no group to kill.
func killGroup(*exec.Cmd) {}
