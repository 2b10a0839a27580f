package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
)

// killGrace bounds how long a command's output pipe may stay open once
// its tree is gone (held by a process that escaped the tree, which the
// process-tree owner does not let happen) before the output is cut.
const killGrace = 2 * time.Second

// runCommand is run_command: one program in exec form, no shell, with its
// working directory inside the workspace.
type runCommand struct{}

func (runCommand) Schema() extproto.ProviderToolSchema {
	return extproto.ProviderToolSchema{
		Name:        "run_command",
		Description: fmt.Sprintf("Run a program in the workspace and return its combined stdout and stderr (the first and last %d KiB) and exit status. The command is an argument vector run directly, not through a shell: no pipes, globs or redirections.", MaxCommandOutput>>11),
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"array","items":{"type":"string"},"minItems":1,"description":"Program and arguments, e.g. [\"go\",\"test\",\"./...\"]"},` +
			`"cwd":{"type":"string","description":"Working directory relative to the workspace root (default: the root)"},` +
			`"timeoutSeconds":{"type":"integer","minimum":1,"description":"Kill the command after this many seconds (capped by the host's tool timeout)"}},` +
			`"required":["command"],"additionalProperties":false}`),
	}
}

func (runCommand) ReadOnly() bool { return false }
func (runCommand) Kind() Kind     { return KindExecute }

func (runCommand) Describe(args json.RawMessage) (string, []string) {
	var a struct {
		Command []string `json:"command"`
		Cwd     string   `json:"cwd"`
	}
	_ = json.Unmarshal(args, &a)
	title := "Run " + strings.Join(a.Command, " ")
	if a.Cwd != "" {
		return title + " in " + a.Cwd, []string{a.Cwd}
	}
	return title, nil
}

func (runCommand) Run(ctx context.Context, env *Env, args json.RawMessage) (string, error) {
	var a struct {
		Command        []string `json:"command"`
		Cwd            string   `json:"cwd"`
		TimeoutSeconds int      `json:"timeoutSeconds"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", err
	}
	if len(a.Command) == 0 || a.Command[0] == "" {
		return "", errors.New("command must name a program")
	}
	dir, err := env.Workspace.Resolve(a.Cwd)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("cwd %q is not a directory of the workspace", a.Cwd)
	}
	timeout := env.Timeout
	if a.TimeoutSeconds > 0 {
		if asked := time.Duration(a.TimeoutSeconds) * time.Second; timeout <= 0 || asked < timeout {
			timeout = asked
		}
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if env.Terminal != nil {
		if out, started, err := runInTerminal(ctx, env.Terminal, Command{Argv: a.Command, Dir: dir, Env: TempEnv(), OutputLimit: MaxCommandOutput}, timeout); started {
			return out, err
		}
	}
	path, err := lookProgram(a.Command[0], dir)
	if err != nil {
		return "", fmt.Errorf("cannot run %s: %w", a.Command[0], err)
	}
	out := newCapture(MaxCommandOutput)
	began := time.Now()
	code, state, err := runOwned(ctx, path, a.Command[1:], dir, out)
	if err != nil {
		return "", fmt.Errorf("cannot run %s: %w", a.Command[0], err)
	}
	elapsed := time.Since(began).Round(time.Millisecond)
	text := out.String()
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", errors.New(withStatus(text, fmt.Sprintf("killed after %s: timed out", timeout)))
	case ctx.Err() != nil:
		return "", errors.New(withStatus(text, "killed: cancelled"))
	case code < 0:
		return "", errors.New(withStatus(text, fmt.Sprintf("terminated by %s after %s", state, elapsed)))
	case code != 0:
		return "", errors.New(withStatus(text, fmt.Sprintf("exit status %d after %s", code, elapsed)))
	}
	return withStatus(text, fmt.Sprintf("exit status 0 after %s", elapsed)), nil
}

// withStatus appends the bracketed status line to a command's output.
func withStatus(output, status string) string {
	if output != "" && !strings.HasSuffix(output, "\n") {
		output += "\n"
	}
	return output + "[" + status + "]"
}

// runInTerminal runs a call in the editor's terminal and words its result
// as the local run does: the output, then "[exit status N after D]",
// "[terminated by signal S after D]", "[killed after T: timed out]" or
// "[killed: cancelled]"; a non-zero exit, a signal and a kill are the
// tool's failure. started is false when the terminal did not start it.
func runInTerminal(ctx context.Context, term Terminal, c Command, timeout time.Duration) (string, bool, error) {
	began := time.Now()
	res, started, err := term.RunCommand(ctx, c)
	if !started {
		return "", false, nil
	}
	elapsed := time.Since(began).Round(time.Millisecond)
	out := newCapture(MaxCommandOutput)
	_, _ = out.Write([]byte(res.Output))
	text := out.String()
	if res.Truncated {
		text += "\n…(output truncated by the client terminal)"
	}
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", true, errors.New(withStatus(text, fmt.Sprintf("killed after %s: timed out", timeout)))
	case ctx.Err() != nil:
		return "", true, errors.New(withStatus(text, "killed: cancelled"))
	case err != nil:
		return "", true, fmt.Errorf("running %s in the editor's terminal: %w", c.Argv[0], err)
	case res.Signal != "":
		return "", true, errors.New(withStatus(text, fmt.Sprintf("terminated by signal %s after %s", res.Signal, elapsed)))
	case res.ExitCode != 0:
		return "", true, errors.New(withStatus(text, fmt.Sprintf("exit status %d after %s", res.ExitCode, elapsed)))
	}
	return withStatus(text, fmt.Sprintf("exit status 0 after %s", elapsed)), true, nil
}
