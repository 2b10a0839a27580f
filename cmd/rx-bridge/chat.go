package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
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
// stdin, one per line (/model REF switches the model, /exit ends); with
// --prompt it runs those turns and exits, for scripts and tests.
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

// chat is one terminal session and the runtime under it.
type chat struct {
	term   *terminal
	out    *renderer
	stderr io.Writer
	rt     *pluginrt.Set
	hub    *editorui.Hub
	agent  *agent.Agent
	s      *agent.Session
	ws     string
	// notices is the agent once it exists, for MCP notices that come
	// from the servers' goroutines.
	notices atomic.Pointer[agent.Agent]
}

// start loads the home, starts its plugin runtimes with the terminal as
// their UI, and builds the agent over built-in and plugin models.
func (c *chat) start(getenv func(string) string, workspace string, approval manifest.ApprovalMode) error {
	var err error
	c.hub, err = editorui.NewHub(editorui.Options{Editor: c.term, Redact: redact.String, SessionID: chatSessionID, Warn: c.warn})
	if err != nil {
		return err
	}
	// The terminal is the plugins' UI: their traffic goes to the hub,
	// which exists before any sidecar can speak.
	c.rt, c.ws, err = openRuntime(context.Background(), getenv, workspace, verbRuntime{
		SessionID: chatSessionID,
		Services: exthost.Services{
			UIRequest: func(ctx context.Context, s *exthost.Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
				return c.hub.Request(editorui.ForSession(ctx, exthost.SessionOf(ctx)), s.Plugin.ID, p)
			},
			UIPublish: func(ctx context.Context, s *exthost.Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
				return c.hub.Publish(editorui.ForSession(ctx, exthost.SessionOf(ctx)), s.Plugin.ID, p)
			},
		},
		Audit:     func(note string) { c.warn("audit: " + note) },
		MCPNotice: c.mcpNotice,
	})
	if err != nil {
		return err
	}
	snap := c.rt.Current()
	for _, w := range snap.Warnings {
		c.warn(w)
	}
	c.hub.Bind(snap.ID, snap.Actions)
	cfg := *snap.Home.Config
	if approval != "" {
		cfg.ToolApproval = approval
	}
	a, err := agent.NewAgent(agent.Options{
		Home:           snap.Home.Dir,
		Settings:       agent.Settings{Model: cfg.Model, Approval: agent.Approval(cfg.Approval()), Steps: cfg.Steps(), ToolTimeout: cfg.ToolTimeout()},
		WorkspaceModel: manifest.WorkspaceModel,
		Runtime:        agent.Pinning(c.rt.Acquire),
		Editor:         c.term,
		OnUpdate:       c.out.update,
	})
	c.agent = a
	c.notices.Store(a)
	return err
}

// mcpNotice shows an MCP server's notice as a line of the session
// (agent.MCPNotice); one that comes before the agent exists goes to
// stderr.
func (c *chat) mcpNotice(n mcphost.Notice) {
	if a := c.notices.Load(); a != nil {
		a.MCPNotice(n)
		return
	}
	if n.Error {
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
		if c.action(strings.TrimSpace(p)) {
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
		case c.action(line):
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
		if err := c.turn(line); err != nil {
			fmt.Fprintf(c.stderr, "rx-bridge chat: %v\n", err)
			code = 1
		}
	}
}

// help lists what can be typed: the built-ins, then the slash commands
// of the running generation (commands, skills, agents, MCP prompts), then
// the plugins' UI actions, in the reference's completion order.
func (c *chat) help() {
	w := c.stderr
	fmt.Fprintln(w, "commands:")
	for _, b := range [][2]string{{"/help", "this list"}, {"/model [REF]", "show or change the model"}, {"/exit", "end the chat"}} {
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

// action runs a typed "/<plugin>:<action>" line that the agent does not
// resolve (no command, skill or MCP prompt has that name) but a plugin
// declares as a UI action, as the reference's dispatch does; it reports
// whether the line was one.
func (c *chat) action(line string) bool {
	fields := strings.Fields(line)
	if len(fields) == 0 || !strings.HasPrefix(fields[0], "/") || !strings.Contains(fields[0], ":") {
		return false
	}
	if _, ok := c.s.Resolve(line); ok {
		return false
	}
	snap, release := c.rt.Acquire()
	defer release()
	a, err := snap.Gen.Action(fields[0])
	if err != nil {
		return false
	}
	res, err := snap.Gen.RunAction(exthost.OnBehalfOf(context.Background(), c.s.ID()), chatSessionID, a, nil)
	switch {
	case err != nil:
		c.warn(fields[0] + " failed: " + err.Error())
	case res.Message != "":
		fmt.Fprintf(c.stderr, "%s: %s\n", fields[0], redact.String(res.Message))
	case !res.Accepted:
		fmt.Fprintf(c.stderr, "%s was not accepted\n", fields[0])
	}
	return true
}

func (c *chat) warn(msg string) { fmt.Fprintf(c.stderr, "rx-bridge chat: %s\n", redact.String(msg)) }

// close ends the session (session.end), then the hub and the runtime.
func (c *chat) close() {
	if c.agent != nil {
		if err := c.agent.Close(context.Background()); err != nil {
			c.warn(err.Error())
		}
	}
	if c.hub != nil {
		c.hub.Close()
	}
	if c.rt != nil {
		c.rt.Close()
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
