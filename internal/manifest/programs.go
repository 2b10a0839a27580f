package manifest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/rx-bridge/rx-bridge/internal/locale"
)

// ProgramsRisk is the sentence a FULL TRUST block of a package without a
// runtime ends with: its hooks and MCP servers are programs too.
const ProgramsRisk = "these programs run outside any sandbox with your full environment: they can read every environment variable and every file you can, and operate this machine directly"

// ProgramKind says what starts a Program.
type ProgramKind string

// The programs a package runs besides its runtime.
const (
	// ProgramHook is a hook command, started at its event.
	ProgramHook ProgramKind = "hook"
	// ProgramMCP is a stdio MCP server, started for the session.
	ProgramMCP ProgramKind = "mcp"
)

// Program is one program a package runs besides its runtime, as the FULL
// TRUST block shows it: a hook command (exec form with its arguments, or a
// script the shell runs) or a stdio MCP server with its arguments, and the
// variables the package adds to its environment (names and lengths only,
// like a runtime's, see EnvVar).
type Program struct {
	Kind ProgramKind `json:"kind"`
	// Label names it: "<Event> match=<pattern>" for a hook, "<server>
	// [stdio]" for an MCP server.
	Label   string   `json:"label"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
	// Shell is set when Command is a script run by the shell (sh -c,
	// cmd /c or PowerShell) rather than a program.
	Shell bool     `json:"shell,omitempty"`
	Env   []EnvVar `json:"env"`
}

// EnvVarsOf lists env by name, leaving out the names in skip (the
// variables the host sets for every package program).
func EnvVarsOf(env map[string]string, skip ...string) []EnvVar {
	out := []EnvVar{}
	for _, k := range sortedKeys(env) {
		if containsFold(skip, k) {
			continue
		}
		out = append(out, EnvVar{Name: k, Chars: utf8.RuneCountInString(env[k])})
	}
	return out
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// Relocate rewrites every occurrence of the directory from in the
// program's command and arguments to to: an install preview reads the
// package where it is and shows the programs where they will be.
func (p Program) Relocate(from, to string) Program {
	if from == "" || from == to {
		return p
	}
	p.Command = strings.ReplaceAll(p.Command, from, to)
	args := make([]string, len(p.Args))
	for i, a := range p.Args {
		args[i] = strings.ReplaceAll(a, from, to)
	}
	p.Args = args
	return p
}

// line is the program as one line of the FULL TRUST block.
func (p Program) line() string {
	label, cmd := p.Label, p.Command
	if p.Shell {
		label += " (shell)"
	} else {
		words := []string{quoteArg(p.Command)}
		for _, a := range p.Args {
			words = append(words, quoteArg(a))
		}
		cmd = strings.Join(words, " ")
	}
	kind := locale.T("hook")
	if p.Kind == ProgramMCP {
		kind = locale.T("MCP server")
	}
	return fmt.Sprintf("%s %s: %s", kind, label, cmd)
}
