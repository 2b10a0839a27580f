package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/engine"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// chatSessionID is the session the runtime's handshakes and the plugin UI
// hub are stamped with: chat runs one session per process.
const chatSessionID = "chat"

// promptList collects repeated --prompt flags.
type promptList []string

func (p *promptList) String() string     { return strings.Join(*p, " | ") }
func (p *promptList) Set(v string) error { *p = append(*p, v); return nil }

// runChat is `rx-bridge chat [--model REF] [--workspace DIR] [--prompt
// TEXT]... [--session ID] [--json] [--yes|--no] [--approval MODE]`: an
// agent session on the terminal. Without --prompt it reads prompts from
// stdin, one per line (/model REF switches the model, /undo [force]
// undoes the last turn's edits, /exit ends); with --prompt it runs those
// turns (and /help and /undo lines) and exits, for scripts and tests.
// Permission and plugin questions are asked on stderr and answered on
// stdin, unless --yes or --no answers every permission question.
func runChat(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model `ref` (default: the workspace's, else config.toml's model)")
	workspace := fs.String("workspace", "", "workspace `dir` (default: the current directory)")
	var prompts promptList
	fs.Var(&prompts, "prompt", "run this prompt as a turn and exit (repeatable)")
	session := fs.String("session", "", "continue the stored session `id` (its history is shown first)")
	asJSON := fs.Bool("json", false, "print every session update as one JSON line")
	yes := fs.Bool("yes", false, "allow every tool call the approval mode asks about")
	no := fs.Bool("no", false, "deny every tool call the approval mode asks about")
	approval := fs.String("approval", "", "tool approval `mode` for this run: ask, auto or yolo (default: config.toml's)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, `usage: rx-bridge chat [--model REF] [--workspace DIR] [--prompt TEXT]... [--session ID] [--json] [--yes|--no] [--approval MODE]`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 0 || (*yes && *no) {
		fs.Usage()
		return exitUsage
	}
	switch manifest.ApprovalMode(*approval) {
	case "", manifest.ApproveAsk, manifest.ApproveAuto, manifest.ApproveYolo:
	default:
		fmt.Fprintf(stderr, "rx-bridge chat: unknown approval mode %q (want ask, auto or yolo)\n", *approval)
		return exitUsage
	}
	answer := agent.PermissionOutcome("")
	if *yes {
		answer = agent.PermissionAllow
	} else if *no {
		answer = agent.PermissionDeny
	}
	term := newTerminal(stdin, stderr, answer, inputTerminal(stdin))
	c := &chat{term: term, out: newRenderer(stdout, *asJSON, isTerminal(stdout)), stderr: stderr}
	if err := c.start(getenv, *workspace, manifest.ApprovalMode(*approval)); err != nil {
		fmt.Fprintf(stderr, "rx-bridge chat: %v\n", redact.String(err.Error()))
		return 1
	}
	defer c.close()
	if err := c.open(*session, *model); err != nil {
		fmt.Fprintf(stderr, "rx-bridge chat: %v\n", redact.String(err.Error()))
		return 1
	}
	if len(prompts) > 0 {
		return c.scripted(prompts)
	}
	return c.interactive()
}

// chat is one terminal session and the engine under it.
type chat struct {
	term   *terminal
	out    *renderer
	stderr io.Writer
	eng    *engine.Engine
	rt     *pluginrt.Set
	agent  *agent.Agent
	s      *agent.Session
	ws     string
	// started is set once the engine is open: an MCP notice before that
	// (a server failing during the first build) goes to stderr.
	started atomic.Bool
}

// start opens the engine of the home the environment names, with the
// terminal as the plugins' UI and the agent's editor; its first
// generation is built before it returns.
func (c *chat) start(getenv func(string) string, workspace string, approval manifest.ApprovalMode) error {
	home, err := manifest.ResolveHome(getenv)
	if err != nil {
		return err
	}
	if workspace == "" {
		if workspace, err = os.Getwd(); err != nil {
			return err
		}
	}
	if c.ws, err = filepath.Abs(workspace); err != nil {
		return err
	}
	c.eng, err = engine.Open(context.Background(), engine.Options{
		Home:      home,
		UserHome:  manifest.UserDirsHome(getenv, getenv(manifest.HomeEnv) != "", os.UserHomeDir),
		Workspace: c.ws,
		SessionID: chatSessionID,
		UI:        c.term,
		Editor:    c.term,
		OnUpdate:  c.out.update,
		Settings: func(s *agent.Settings) {
			if approval != "" {
				s.Approval = agent.Approval(approval)
			}
		},
		Warn:      c.warn,
		Audit:     func(note string) { c.warn("audit: " + note) },
		MCPNotice: c.mcpNotice,
	})
	if err != nil {
		return err
	}
	c.rt, c.agent = c.eng.Runtime, c.eng.Agent
	c.started.Store(true)
	snap := c.rt.Current()
	for _, w := range snap.Warnings {
		c.warn(w)
	}
	// A verb runs on the catalog config.toml asks for, or not at all.
	return snap.CatalogErr
}

// mcpNotice shows an MCP server's failure that comes before the engine
// is open on stderr; later ones are lines of the session (the engine
// puts them there).
func (c *chat) mcpNotice(n mcphost.Notice) {
	if !c.started.Load() && n.Error {
		c.warn("MCP server " + n.Server + ": " + n.Text)
	}
}

// open starts a new session or loads a stored one (showing its history).
func (c *chat) open(id, model string) error {
	var err error
	if id == "" {
		c.s, err = c.agent.New(context.Background(), c.ws, model)
		if err == nil {
			c.out.started(c.s)
		}
		return err
	}
	c.out.replay(true)
	c.s, err = c.agent.Load(context.Background(), id)
	c.out.replay(false)
	if err != nil {
		return err
	}
	c.out.started(c.s)
	if model == "" {
		return nil
	}
	return c.s.SetModel(model)
}

// turn runs one prompt; Ctrl-C cancels the turn instead of the process.
func (c *chat) turn(text string) error {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			c.s.Cancel()
		case <-done:
		}
	}()
	_, err := c.s.Prompt(context.Background(), text)
	close(done)
	signal.Stop(sig)
	return err
}

func (c *chat) scripted(prompts []string) int {
	code := 0
	for _, p := range prompts {
		if strings.TrimSpace(p) == "/help" {
			c.help()
			continue
		}
		if arg, ok := undoLine(p); ok {
			if err := c.undo(arg); err != nil {
				fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
				code = 1
			}
			continue
		}
		if err := c.turn(p); err != nil {
			fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			code = 1
		}
	}
	return code
}

func (c *chat) interactive() int {
	code := 0
	for {
		line, err := c.term.prompt("> ")
		if errors.Is(err, io.EOF) {
			return code
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			return 1
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case line == "/exit" || line == "/quit":
			return code
		case line == "/help" || line == "/commands":
			c.help()
			continue
		case line == "/mode" || strings.HasPrefix(line, "/mode "):
			m := strings.TrimSpace(strings.TrimPrefix(line, "/mode"))
			if m == "" {
				fmt.Fprintf(c.stderr, "mode: %s\n", c.s.Mode())
			} else if err := c.s.SetMode(agent.Mode(m)); err != nil {
				fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			} else {
				fmt.Fprintf(c.stderr, "mode: %s\n", c.s.Mode())
			}
			continue
		case strings.HasPrefix(line, "/model"):
			ref := strings.TrimSpace(strings.TrimPrefix(line, "/model"))
			if ref == "" {
				fmt.Fprintf(c.stderr, "model: %s\n", c.s.Model())
			} else if err := c.s.SetModel(ref); err != nil {
				fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			}
			continue
		}
		if arg, ok := undoLine(line); ok {
			if err := c.undo(arg); err != nil {
				fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
				code = 1
			}
			continue
		}
		if err := c.turn(line); err != nil {
			fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			code = 1
		}
	}
}

// undoLine reports whether line is the built-in /undo and returns what
// follows it. Any line whose first word is /undo is the built-in, so it
// never reaches the model.
func undoLine(line string) (arg string, ok bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "/undo")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	return strings.TrimSpace(rest), true
}

// undo is `/undo [force]`: the session's last turn not undone yet is
// undone (the agent's Session.UndoTurn, on disk: the terminal has no
// buffers), and each file restored, and each left alone with why, is
// listed on stderr, relative to the workspace.
func (c *chat) undo(arg string) error {
	if arg != "" && arg != "force" {
		return fmt.Errorf("/undo %s: /undo takes no argument but force", arg)
	}
	u, err := c.s.UndoTurn(context.Background(), arg == "force")
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stderr, "undid turn %d:\n", u.Turn)
	for _, p := range u.Restored {
		fmt.Fprintf(c.stderr, "  restored %s\n", c.rel(p))
	}
	for _, k := range u.Skipped {
		fmt.Fprintf(c.stderr, "  skipped %s: %s\n", c.rel(k.Path), k.Reason)
	}
	return nil
}

// rel is path relative to the session's workspace when it is inside it.
func (c *chat) rel(path string) string {
	if r, err := filepath.Rel(c.s.Workspace(), path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return r
	}
	return path
}

// help lists what can be typed: the built-ins, then the slash commands
// of the running generation (commands, skills, agents, MCP prompts), then
// the plugins' UI actions, in the reference's completion order.
func (c *chat) help() {
	w := c.stderr
	fmt.Fprintln(w, "commands:")
	for _, b := range [][2]string{{"/help", "this list"}, {"/model [REF]", "show or change the model"}, {"/mode [normal|plan]", "show or change the mode (plan: read and plan, edits wait for your approval of the plan)"}, {"/undo [force]", "undo the file changes of the last turn not undone yet"}, {"/exit", "end the chat"}} {
		fmt.Fprintf(w, "  %s - %s\n", b[0], b[1])
	}
	snap, release := c.rt.Acquire()
	defer release()
	for _, sl := range snap.Slash() {
		l := "/" + sl.Name
		if sl.ArgHint != "" {
			l += " " + sl.ArgHint
		}
		desc := sl.Description
		if desc == "" {
			desc = "(no description)"
		}
		tag := ""
		if sl.Subagent {
			tag = " [subagent]"
		}
		fmt.Fprintf(w, "  %s%s - %s\n", redact.String(l), tag, redact.String(oneLine(desc)))
	}
	for _, a := range snap.Actions {
		fmt.Fprintf(w, "  %s - %s (plugin action)\n", a.Name(), redact.String(orDefault(a.Label, "(no label)")))
	}
}

func (c *chat) warn(msg string) { fmt.Fprintf(c.stderr, "rx-bridge chat: %s\n", redact.String(msg)) }

// close ends the session (session.end), then the hub and the runtime.
func (c *chat) close() {
	if c.eng != nil {
		if err := c.eng.Close(context.Background()); err != nil {
			c.warn(err.Error())
		}
	}
}

// inputTerminal reports whether r is a terminal (a character device).
func inputTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
