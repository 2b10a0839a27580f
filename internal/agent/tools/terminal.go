package tools

import (
	"context"
	"os"
	"strings"
)

// Terminal runs run_command's commands somewhere other than this process:
// an ACP client's own terminal (terminal/*), so the user sees them run in
// the editor. An Editor that implements it gets every run_command call
// (Env.Terminal); one that does not (the LSP bridge, the terminal chat)
// runs them here.
//
// A command run there is the client's process, not ours: proctree does
// not own its tree (a local run does, owned.go). Ending the call can only
// ask the terminal to kill it; what it leaves behind, and the whole of it
// when this process is killed, is the client's to clean up.
type Terminal interface {
	// RunCommand runs cmd to its end and reports what it printed and how
	// it ended. started is false when the terminal could not start it
	// (no terminal offered, creation refused): the command then runs
	// here. Once started, a ctx that ends kills the command and
	// RunCommand returns ctx's error with the output so far; any other
	// error is the terminal's failure after the start.
	RunCommand(ctx context.Context, cmd Command) (res CommandResult, started bool, err error)
}

// Command is one run_command call as a terminal runs it.
type Command struct {
	// Argv is the program and its arguments (exec form, no shell).
	Argv []string
	// Dir is the working directory, absolute and inside the workspace.
	Dir string
	// Env overrides variables of the terminal's environment: the ones the
	// command sees when it runs here and a terminal may not have
	// (TempEnv).
	Env map[string]string
	// OutputLimit is the most output bytes worth keeping.
	OutputLimit int
}

// CommandResult is how a command a terminal ran ended.
type CommandResult struct {
	// Output is the combined output the terminal kept; Truncated says it
	// dropped some.
	Output    string
	Truncated bool
	// ExitCode is the exit status; Signal, when not empty, the signal
	// that ended the command instead.
	ExitCode int
	Signal   string
}

// tempVars are the variables naming the temporary directory, on every OS.
var tempVars = []string{"TMPDIR", "TMP", "TEMP"}

// TempEnv is the temporary-directory variables of this process that are
// set: a command run here inherits them, so one run in a terminal gets
// them too (its temporary files land in the same place).
func TempEnv() map[string]string {
	var out map[string]string
	for _, k := range tempVars {
		if v, ok := os.LookupEnv(k); ok && v != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// ShellQuote renders argv as one command line a POSIX shell reads back as
// exactly argv: words made only of safe characters stay as they are,
// every other word is single-quoted. Nothing in it is expanded, globbed,
// piped or redirected.
func ShellQuote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellWord(a)
	}
	return strings.Join(words, " ")
}

func shellWord(s string) string {
	if s == "" {
		return "''"
	}
	for i, r := range s {
		// zsh expands a word starting with "=" (=cmd is cmd's path).
		if !safeShellRune(r) || (i == 0 && r == '=') {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

func safeShellRune(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	}
	return strings.ContainsRune("_-+./:,@=", r)
}
