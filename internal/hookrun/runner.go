package hookrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// pipeGrace bounds how long output is awaited after the hook's tree is
// gone or killed: a descendant that escaped the tree may hold the pipes.
const pipeGrace = 500 * time.Millisecond

// Runner runs the hooks Load resolved. It is safe for concurrent use.
// Close kills every hook still running, async ones included.
type Runner struct {
	workspace string
	env       []string
	hooks     []*Hook
	start     StartFunc
	pl        platform

	mu     sync.Mutex
	closed bool
	// failed records the hooks that could not start, per session.
	failed map[startKey]bool
	live   map[Tree]struct{}
	async  sync.WaitGroup
}

func newRunner(workspace string, env []string, hooks []*Hook, start StartFunc, pl platform) *Runner {
	return &Runner{workspace: workspace, env: env, hooks: hooks, start: start, pl: pl, live: map[Tree]struct{}{}}
}

// Listing returns every hook in firing order (copies), for /hooks and
// plugin show.
func (r *Runner) Listing() []Hook {
	out := make([]Hook, len(r.hooks))
	for i, h := range r.hooks {
		out[i] = *h
	}
	return out
}

// Close kills every running hook tree and waits for async hooks to end.
// Runs after Close start nothing. It is idempotent.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	for t := range r.live {
		t.Kill()
	}
	r.mu.Unlock()
	r.async.Wait()
}

// Result is one hook's run. Every text in it is capped, valid UTF-8,
// trimmed and redacted.
type Result struct {
	// Hook is the hook that ran (shared; do not modify).
	Hook *Hook
	// Event is the event it ran as: PostToolUse (Stop) for a native
	// observer of PostToolUseFailure (StopFailure).
	Event    Event
	Decision Decision
	// Async is set for a hook started in the background; its Decision is
	// always Pass and nothing else is known.
	Async     bool
	ExitCode  int
	TimedOut  bool
	Stdout    string
	Stderr    string
	Truncated bool
	// Err says why the hook could not run (Decision Error).
	Err string
	// Output is what a JSON stdout said.
	Output Output
	// Feedback is what a Claude-format PostToolUse, Stop or SubagentStop
	// hook told the model: its decision "block" reason, or its stderr on
	// exit 2.
	Feedback string
	// StartFailed is set when the hook could not start: its program was
	// not found or could not be executed (a spawn error, or exit 126 or
	// 127 from the shell of a shell or legacy hook).
	StartFailed bool

	// notice replaces Notice for the first start failure of a hook in a
	// session; quiet hides the later ones.
	notice string
	quiet  bool
}

// detail is the text a notice or a block shows: the error, else stderr,
// else stdout.
func (res Result) detail() string {
	switch {
	case res.Err != "":
		return res.Err
	case res.Stderr != "":
		return res.Stderr
	case res.Output.SuppressOutput:
		return ""
	}
	return res.Stdout
}

// Notice is the warning shown for a non-pass result:
// hook [<scope>/<Event>] <label> — <decision>[ (timed out after <d>)][ (output truncated)][: <detail>].
func (res Result) Notice() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hook [%s/%s] %s — %s", res.Hook.Scope, res.Event, res.Hook.Label(), res.Decision)
	if res.TimedOut {
		fmt.Fprintf(&b, " (timed out after %s)", res.Hook.Timeout)
	}
	if res.Truncated {
		b.WriteString(" (output truncated)")
	}
	if d := res.detail(); d != "" {
		b.WriteString(": " + d)
	}
	return b.String()
}

// Report is what the hooks of one event decided.
type Report struct {
	Event   Event
	Results []Result
	// Blocked is set when a hook blocked (only blocking events block);
	// the hooks after it did not run. Reason is its text, possibly empty.
	Blocked bool
	Reason  string
	// Halted is set when a Claude-format hook answered continue: false:
	// the turn stops after this moment; the hooks after it did not run.
	// StopReason is for the user.
	Halted     bool
	StopReason string
}

// Notices are the warnings to show the user, in order: one per non-pass
// result, plus JSON problems of SessionStart hooks.
func (rep Report) Notices() []string {
	var out []string
	for _, res := range rep.Results {
		switch {
		case res.quiet:
		case res.notice != "":
			out = append(out, res.notice)
		case res.Decision != Pass:
			out = append(out, res.Notice())
		}
		if rep.Event == SessionStart && res.Output.Warning != "" {
			out = append(out, res.noticef("%s", res.Output.Warning))
		}
		if !res.Hook.Claude {
			continue
		}
		if m := res.Output.SystemMessage; m != "" {
			out = append(out, res.noticef("%s", m))
		}
		if res.Output.Halt && res.Decision == Pass {
			m := "stopped the turn (continue: false)"
			if r := res.Output.StopReason; r != "" {
				m += ": " + r
			}
			out = append(out, res.noticef("%s", m))
		}
	}
	return out
}

// noticef is a notice about res's hook: hook [<scope>/<Event>] <label> — <text>.
func (res Result) noticef(format string, args ...any) string {
	return fmt.Sprintf("hook [%s/%s] %s — ", res.Hook.Scope, res.Event, res.Hook.Label()) + fmt.Sprintf(format, args...)
}

// Run runs the hooks of ev whose matcher accepts p's tool, one after the
// other, and stops at the first block. For PostToolUseFailure
// (StopFailure) the native PostToolUse (Stop) hooks then run too, told
// the event is PostToolUse (Stop). ctx cancels the run: a cancelled hook
// is an Error and never blocks. p.Cwd defaults to the workspace.
func (r *Runner) Run(ctx context.Context, ev Event, p Payload) Report {
	if p.Cwd == "" {
		p.Cwd = r.workspace
	}
	type job struct {
		h  *Hook
		ev Event
	}
	var jobs []job
	for _, h := range r.hooks {
		if h.Event == ev && h.matchesTool(ev, p.ToolName, p.ToolArgs) {
			jobs = append(jobs, job{h, ev})
		}
	}
	if also := map[Event]Event{PostToolUseFailure: PostToolUse, StopFailure: Stop}[ev]; also != "" {
		for _, h := range r.hooks {
			if h.Event == also && !h.Claude && h.matchesTool(also, p.ToolName, p.ToolArgs) {
				jobs = append(jobs, job{h, also})
			}
		}
	}
	rep := Report{Event: ev}
	for _, j := range jobs {
		if j.h.Async {
			r.runAsync(ctx, j.h, j.ev, p)
			rep.Results = append(rep.Results, Result{Hook: j.h, Event: j.ev, Decision: Pass, Async: true})
			continue
		}
		res := r.runOne(ctx, j.h, j.ev, p)
		if res.StartFailed {
			r.startFailure(p.SessionID, &res)
		}
		rep.Results = append(rep.Results, res)
		if res.Decision == Block {
			rep.Blocked, rep.Reason = true, res.detail()
			break
		}
		if j.h.Claude && res.Decision == Pass && res.Output.Halt {
			rep.Halted, rep.StopReason = true, res.Output.StopReason
			break
		}
	}
	return rep
}

// startFailure makes a hook that could not start a warning naming its
// plugin (or settings file), once per session: the same broken hook
// fails at every call, and one clear notice beats one per tool call.
func (r *Runner) startFailure(session string, res *Result) {
	k := startKey{session, res.Hook}
	r.mu.Lock()
	seen := r.failed[k]
	if r.failed == nil {
		r.failed = map[startKey]bool{}
	}
	r.failed[k] = true
	r.mu.Unlock()
	if seen {
		res.quiet = true
		return
	}
	h := res.Hook
	who := "plugin " + h.Plugin
	if h.Plugin == "" {
		who = string(h.Scope) + " settings " + h.Source
	}
	res.notice = h.red.String(fmt.Sprintf("%s: its %s hook could not start, so it did not run (%s): %s; shown once this session", who, res.Event, h.Label(), res.detail()))
}

type startKey struct {
	session string
	hook    *Hook
}

// runAsync starts a hook in the background, detached from ctx's
// cancellation but still bounded by its timeout and by Close.
func (r *Runner) runAsync(ctx context.Context, h *Hook, ev Event, p Payload) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.async.Add(1)
	r.mu.Unlock()
	go func() {
		defer r.async.Done()
		r.runOne(context.WithoutCancel(ctx), h, ev, p)
	}()
}

// runOne runs one hook and decides its outcome.
func (r *Runner) runOne(ctx context.Context, h *Hook, ev Event, p Payload) Result {
	res := Result{Hook: h, Event: ev}
	var stdout, stderr []byte
	var spawnErr error
	if h.Form == FormContext {
		stdout, res.Truncated, spawnErr = readContext(h.ContextFile)
	} else {
		var run procRun
		run, spawnErr = r.exec(ctx, h, p.Cwd, marshalPayload(ev, p, h.Claude))
		stdout, stderr, res.Truncated = run.stdout, run.stderr, run.truncated
		res.ExitCode, res.TimedOut = run.exitCode, run.timedOut
	}
	blocking := ev.blocking(h.Claude)
	res.Decision = decideOutcome(blocking, spawnErr != nil, res.TimedOut, res.ExitCode)
	if spawnErr != nil {
		res.Err = spawnErr.Error()
	}
	switch {
	case spawnErr != nil:
		res.StartFailed = h.Form != FormContext && ctx.Err() == nil && !errors.Is(spawnErr, errClosed) && !strings.HasPrefix(res.Err, "cancelled")
	case !res.TimedOut && (h.Form == FormShell || h.Form == FormLegacy):
		// The shells' own "not found" and "not executable".
		res.StartFailed = res.ExitCode == 126 || res.ExitCode == 127
	}
	res.Stdout = decodeOutput(stdout, res.Truncated)
	res.Stderr = decodeOutput(stderr, res.Truncated)
	if res.Decision == Pass {
		res.Output = ParseOutput(ev, res.Stdout)
		if h.Claude && honoursDecisions(ev) && res.Output.Deny {
			res.Decision = Block
			res.Stdout = res.Output.Reason
		}
	}
	if h.Claude && (ev == PostToolUse || ev == Stop || ev == SubagentStop) {
		switch {
		case res.ExitCode == 2 && !res.TimedOut && spawnErr == nil:
			res.Feedback = res.Stderr
		case res.Decision == Pass && res.Output.Block:
			res.Feedback = res.Output.Reason
		}
	}
	red := h.red.String
	res.Stdout, res.Stderr, res.Err = red(res.Stdout), red(res.Stderr), red(res.Err)
	res.Output.Reason = red(res.Output.Reason)
	res.Output.AdditionalContext = red(res.Output.AdditionalContext)
	res.Output.Warning = red(res.Output.Warning)
	res.Output.SystemMessage = red(res.Output.SystemMessage)
	res.Output.StopReason = red(res.Output.StopReason)
	res.Feedback = red(res.Feedback)
	return res
}

// readContext reads a contextFile hook's file as its stdout.
func readContext(file string) ([]byte, bool, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false, fmt.Errorf("context file: %w", err)
	}
	defer f.Close()
	var c capBuffer
	if _, err := io.Copy(&c, f); err != nil {
		return nil, false, fmt.Errorf("context file %s: %w", file, err)
	}
	return c.b, c.truncated, nil
}

type procRun struct {
	stdout, stderr []byte
	truncated      bool
	exitCode       int
	timedOut       bool
}

var errClosed = errors.New("the hook runner was closed")

// exec starts the hook's tree, feeds it the payload, captures its output
// and ends it: on exit, on timeout, on ctx's cancellation or on Close.
// It runs in h.Dir, else in cwd (the payload's, the project directory).
func (r *Runner) exec(ctx context.Context, h *Hook, cwd string, payload []byte) (procRun, error) {
	var run procRun
	if err := ctx.Err(); err != nil {
		return run, fmt.Errorf("cancelled: %w", err)
	}
	dir := h.Dir
	if dir == "" {
		dir = cwd
	}
	cmd, err := r.pl.command(h, dir)
	if err != nil {
		return run, err
	}
	cmd.Env, cmd.Dir = mergeEnv(r.pl.goos, r.env, h.Env), dir
	var files [6]*os.File // inR, inW, outR, outW, errR, errW
	for i := 0; i < 6; i += 2 {
		if files[i], files[i+1], err = os.Pipe(); err != nil {
			closeFiles(files[:i]...)
			return run, err
		}
	}
	inR, inW, outR, outW, errR, errW := files[0], files[1], files[2], files[3], files[4], files[5]
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		closeFiles(files[:]...)
		return run, errClosed
	}
	tree, err := r.start(cmd, inR, outW, errW)
	if err == nil {
		r.live[tree] = struct{}{}
	}
	r.mu.Unlock()
	closeFiles(inR, outW, errW)
	if err != nil {
		closeFiles(inW, outR, errR)
		return run, err
	}
	defer func() {
		r.mu.Lock()
		delete(r.live, tree)
		r.mu.Unlock()
	}()
	go func() {
		_, _ = inW.Write(payload)
		_ = inW.Close()
	}()
	outBuf, outDone := capture(outR)
	errBuf, errDone := capture(errR)

	tctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	var stopErr error
	select {
	case <-tree.Exited():
	case <-tctx.Done():
		tree.Kill()
		<-tree.Exited()
		switch {
		case ctx.Err() != nil:
			stopErr = fmt.Errorf("cancelled: %w", ctx.Err())
		default:
			run.timedOut = true
		}
	}
	r.mu.Lock()
	if r.closed && stopErr == nil && !run.timedOut {
		stopErr = errClosed
	}
	r.mu.Unlock()
	// The tree is gone, so the pipes close unless something escaped it.
	grace := time.NewTimer(pipeGrace)
	for _, done := range []chan struct{}{outDone, errDone} {
		select {
		case <-done:
		case <-grace.C:
		}
	}
	grace.Stop()
	closeFiles(outR, errR)
	<-outDone
	<-errDone
	run.stdout, run.stderr = outBuf.b, errBuf.b
	run.truncated = outBuf.truncated || errBuf.truncated
	run.exitCode = tree.ExitCode()
	return run, stopErr
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}

// mergeEnv is the host environment followed by the hook's sorted by key,
// later entries winning (case-insensitively on Windows).
func mergeEnv(goos string, host []string, own map[string]string) []string {
	keys := make([]string, 0, len(own))
	for k := range own {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	all := slices.Clone(host)
	for _, k := range keys {
		all = append(all, k+"="+own[k])
	}
	norm := func(k string) string {
		if goos == "windows" {
			return strings.ToUpper(k)
		}
		return k
	}
	last := map[string]int{}
	for i, kv := range all {
		last[norm(envKey(kv))] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range all {
		if last[norm(envKey(kv))] == i {
			out = append(out, kv)
		}
	}
	return out
}

// envKey is the name of a NAME=value entry; Windows' per-drive entries
// ("=C:=C:\\x") start with "=", which belongs to the name.
func envKey(kv string) string {
	if i := strings.IndexByte(kv[min(1, len(kv)):], '='); i >= 0 {
		return kv[:i+min(1, len(kv))]
	}
	return kv
}
