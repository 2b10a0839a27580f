package acp

import (
	"context"
	"errors"
	"slices"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

var _ agent.Terminal = (*clientEditor)(nil)

// terminalCleanup bounds each of the kill, output and release requests
// sent after the call's context ended (a client that never answers must
// not hold the turn).
const terminalCleanup = 5 * time.Second

// terminalRequest is terminal/create for c: the whole command as one
// line a shell reads back as exactly c.Argv (clients run it through the
// user's shell, as the reference sends its commands), its directory, the
// environment overrides sorted by name, the output limit.
func terminalRequest(session string, c tools.Command) acpsdk.CreateTerminalRequest {
	req := acpsdk.CreateTerminalRequest{SessionId: acpsdk.SessionId(session), Command: tools.ShellQuote(c.Argv)}
	if c.Dir != "" {
		req.Cwd = acpsdk.Ptr(c.Dir)
	}
	for k, v := range c.Env {
		req.Env = append(req.Env, acpsdk.EnvVariable{Name: k, Value: v})
	}
	slices.SortFunc(req.Env, func(a, b acpsdk.EnvVariable) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	if c.OutputLimit > 0 {
		req.OutputByteLimit = acpsdk.Ptr(c.OutputLimit)
	}
	return req
}

// RunCommand runs a run_command call in the client's terminal when it
// offers terminal/*: terminal/create, terminal/wait_for_exit (bounded by
// ctx, the tool's timeout and the turn), terminal/kill when ctx ended
// first, terminal/output, and terminal/release whatever happened. A
// client that cannot create the terminal leaves the command to run
// locally.
func (e *clientEditor) RunCommand(ctx context.Context, c tools.Command) (tools.CommandResult, bool, error) {
	id := sessionOf(ctx)
	if id == "" || len(c.Argv) == 0 || !e.s.clientCaps().Terminal {
		return tools.CommandResult{}, false, nil
	}
	conn := e.s.client()
	created, err := conn.CreateTerminal(ctx, terminalRequest(id, c))
	switch {
	case ctx.Err() != nil:
		return tools.CommandResult{}, true, ctx.Err()
	case err != nil || created.TerminalId == "":
		if err == nil {
			err = errors.New("no terminalId")
		}
		e.s.log.Warn("terminal/create failed; running the command locally", "err", redact.String(err.Error()))
		return tools.CommandResult{}, false, nil
	}
	sid, term := acpsdk.SessionId(id), created.TerminalId
	// Each cleanup request gets its own bound and is sent only after the
	// one before it was answered or its bound ended. With one shared
	// bound, a slow kill used it up and the SDK still sent output and
	// release on the ended context without waiting for either: the client
	// could handle release first and then output on a released id.
	cleanup := func(send func(context.Context) error) error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), terminalCleanup)
		defer cancel()
		return send(cctx)
	}
	defer func() {
		if err := cleanup(func(cctx context.Context) error {
			_, err := conn.ReleaseTerminal(cctx, acpsdk.ReleaseTerminalRequest{SessionId: sid, TerminalId: term})
			return err
		}); err != nil {
			e.s.log.Debug("terminal/release failed", "terminal", term, "err", redact.String(err.Error()))
		}
	}()
	exit, waitErr := conn.WaitForTerminalExit(ctx, acpsdk.WaitForTerminalExitRequest{SessionId: sid, TerminalId: term})
	if ctx.Err() != nil {
		waitErr = ctx.Err()
		if err := cleanup(func(cctx context.Context) error {
			_, err := conn.KillTerminal(cctx, acpsdk.KillTerminalRequest{SessionId: sid, TerminalId: term})
			return err
		}); err != nil {
			e.s.log.Debug("terminal/kill failed", "terminal", term, "err", redact.String(err.Error()))
		}
	}
	var out acpsdk.TerminalOutputResponse
	outErr := cleanup(func(cctx context.Context) (err error) {
		out, err = conn.TerminalOutput(cctx, acpsdk.TerminalOutputRequest{SessionId: sid, TerminalId: term})
		return err
	})
	res := tools.CommandResult{Output: out.Output, Truncated: out.Truncated}
	if waitErr != nil {
		return res, true, waitErr
	}
	if outErr != nil {
		return res, true, outErr
	}
	status := acpsdk.TerminalExitStatus{ExitCode: exit.ExitCode, Signal: exit.Signal}
	if status.ExitCode == nil && status.Signal == nil && out.ExitStatus != nil {
		status = *out.ExitStatus
	}
	return exitResult(res, status)
}

// exitResult completes a terminal's result with how its command ended;
// a client that says neither an exit code nor a signal is an error (the
// command must not pass for a success).
func exitResult(res tools.CommandResult, st acpsdk.TerminalExitStatus) (tools.CommandResult, bool, error) {
	switch {
	case st.Signal != nil && *st.Signal != "":
		res.Signal = redact.String(*st.Signal)
	case st.ExitCode != nil:
		res.ExitCode = *st.ExitCode
	default:
		return res, true, errors.New("the client's terminal reported neither an exit code nor a signal")
	}
	return res, true, nil
}
