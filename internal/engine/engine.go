// Package engine is the one engine under every front end: `rx-bridge
// serve` (LSP, internal/bridge), `rx-bridge acp` (internal/acp),
// `rx-bridge mcp` (internal/mcpserve) and `rx-bridge chat` (cmd/rx-bridge)
// open it and become protocol adapters over it. It assembles the
// plugins' UI hub (editorui), the plugin runtime (pluginrt) and the agent
// (agent) in one way, and owns the
// policies that join them, so no front end decides them on its own:
//
//   - the plugins' UI traffic goes to the hub, which exthost has already
//     checked for the sidecar's own generation and the hub checks
//     against the generation it is bound to;
//   - a build of the plugins waits until no turn runs (agent.Idle), then
//     binds the hub to the new generation before the front end hears of it;
//   - requests that need the plugins wait for the first build
//     (pluginrt.Set.Ready);
//   - the agent's settings come from the home's config.toml;
//   - the MCP servers' notices reach every open session before the front
//     end shows them its own way;
//   - the workspace's roots (Roots, SetRoots): the primary one the
//     sidecars are told of, then the editor's other folders, which open
//     sessions and the plugins' next build follow.
//   - the MCP servers' elicitation requests are asked through the hub,
//     the path plugin questions take; their progress and OAuth pages go
//     to the front end (Options.MCPProgress, Options.OpenURL), or
//     through the hub and as a notice when it has no way of its own.
//
// The policies of a session (permission grants, the approval table, the
// workspace boundary, typed actions, undo) live in the agent, which the
// engine holds; docs/ARCHITECTURE.md ("The engine") lists where each one
// is decided.
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/editorui"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Options configure an engine. Home, Workspace, SessionID, UI and Editor
// are required.
type Options struct {
	// Home is the bridge home (absolute); UserHome the user's home whose
	// convention folders serve commands and skills ("" reads none).
	Home, UserHome string
	// Workspace is the workspace root (absolute) the sidecars are told
	// about; sessions name their own.
	Workspace string
	// Roots are the workspace's other roots (absolute directories) in the
	// editor's order, after Workspace, its primary root: a multi-root
	// workspace. The front end gives them to the sessions that follow the
	// editor's folders (Roots, SetRoots); the plugins' commands, skills,
	// project memory and hooks are read from every root, the primary
	// first (docs/ARCHITECTURE.md "Multi-root workspaces").
	Roots []string
	// SessionID is the runtime's session: every handshake, the hub and
	// every action are stamped with it.
	SessionID string
	// Deferred opens the runtime without building: the front end calls
	// Runtime.Starting where it decides to build, then Runtime.Reload
	// (serve builds after LSP's initialized), and requests that need the
	// plugins wait in Runtime.Ready. Otherwise Open builds the first
	// generation.
	Deferred bool

	// UI shows the plugins' UI (editorui.Editor); Submit, if set,
	// delivers a form's values (editorui.Options.Submit).
	UI     editorui.Editor
	Submit func(ctx context.Context, o editorui.Origin, values map[string]json.RawMessage) error
	// Editor is the agent's view of the front end: documents, edits,
	// permission prompts, the terminal.
	Editor agent.Editor
	// OnUpdate receives every session update.
	OnUpdate func(session string, u agent.Update)
	// Settings adjusts the agent's settings read from config.toml (chat's
	// --approval flag); nil keeps them.
	Settings func(*agent.Settings)

	// Logger receives diagnostics (nil discards them); Warn the hub's
	// warnings (default: the logger); Audit every audit note (default:
	// the logger, as a warning); Trace every frame of every sidecar.
	Logger *slog.Logger
	Warn   func(msg string)
	Audit  func(note string)
	Trace  func(plugin string, inbound bool, frame []byte)
	// OnCrash is told of a sidecar that crashed.
	OnCrash func(sc *exthost.Sidecar, err error)
	// MCPNotice shows an MCP server's notice the front end's way, after
	// the engine has put it in every open session.
	MCPNotice func(mcphost.Notice)
	// OpenURL opens a page in the user's browser (an MCP server's OAuth
	// authorization page; LSP window/showDocument). Nil, or an error:
	// the engine shows a notice with the URL instead, in every open
	// session and through MCPNotice.
	OpenURL func(ctx context.Context, url string) error
	// MCPProgress shows an MCP tool call's progress the front end's way
	// (LSP work-done progress); nil shows it as a status item of the
	// server through the hub.
	MCPProgress func(mcphost.Progress)
	// OnBuild is the front end's view of a build (progress, its own
	// notifications), run after the engine has waited for running turns;
	// after, if not nil, gets the outcome once the hub is bound.
	OnBuild func(ctx context.Context) (after func(*pluginrt.Snapshot, error), err error)
}

// Engine is one front end's hub, runtime and agent.
type Engine struct {
	Hub     *editorui.Hub
	Runtime *pluginrt.Set
	Agent   *agent.Agent

	opts  Options
	roots atomic.Pointer[[]string]    // Workspace then Options.Roots, as SetRoots last set them
	agent atomic.Pointer[agent.Agent] // set once the agent exists (builds and notices may come first)
}

// Open assembles the engine: the hub, the runtime (built unless
// Deferred) and the agent over it. Nothing is left running on error.
func Open(ctx context.Context, opts Options) (*Engine, error) {
	if opts.Home == "" || opts.Workspace == "" || opts.SessionID == "" || opts.UI == nil || opts.Editor == nil {
		return nil, errors.New("engine: Home, Workspace, SessionID, UI and Editor are required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Warn == nil {
		opts.Warn = func(msg string) { opts.Logger.Warn(msg) }
	}
	if opts.Audit == nil {
		opts.Audit = func(note string) { opts.Logger.Warn("audit: " + redact.String(note)) }
	}
	e := &Engine{opts: opts}
	roots := workspaceRoots(opts.Workspace, opts.Roots)
	e.roots.Store(&roots)
	var err error
	e.Hub, err = editorui.NewHub(editorui.Options{Editor: opts.UI, Redact: redact.String, SessionID: opts.SessionID, Submit: opts.Submit, Warn: opts.Warn})
	if err != nil {
		return nil, err
	}
	e.Runtime, err = pluginrt.Open(ctx, pluginrt.Options{
		Home:         opts.Home,
		SessionID:    opts.SessionID,
		Workspace:    opts.Workspace,
		Roots:        roots[1:],
		SystemPrompt: agent.DefaultSystemPrompt(opts.Workspace, roots[1:]...),
		Prompt:       func(folders []string) string { return agent.DefaultSystemPrompt(opts.Workspace, folders...) },
		Services:     e.services(),
		Audit:        opts.Audit,
		Logger:       opts.Logger,
		Trace:        opts.Trace,
		Deferred:     opts.Deferred,
		OnBuild:      e.onBuild,
		UserHome:     opts.UserHome,
		MCPNotice:    e.mcpNotice,
		MCPClient:    mcphost.Client{Elicit: e.mcpElicit, OnProgress: e.mcpProgress, OpenURL: e.openURL},
	})
	if err != nil {
		e.Hub.Close()
		return nil, err
	}
	snap := e.Runtime.Current()
	e.Hub.Bind(snap.ID, snap.Actions)
	cfg := snap.Home.Config
	settings := agent.Settings{Model: cfg.Model, Approval: agent.Approval(cfg.Approval()), Steps: cfg.Steps(), ToolTimeout: cfg.ToolTimeout()}
	if opts.Settings != nil {
		opts.Settings(&settings)
	}
	a, err := agent.NewAgent(agent.Options{
		Home:           snap.Home.Dir,
		Settings:       settings,
		WorkspaceModel: manifest.WorkspaceModel,
		ConfigModel:    e.configModel,
		Runtime:        agent.Pinning(e.Runtime.Acquire),
		Editor:         opts.Editor,
		OnUpdate:       opts.OnUpdate,
		Logger:         opts.Logger,
	})
	if err != nil {
		e.Hub.Close()
		e.Runtime.Close()
		return nil, err
	}
	e.Agent = a
	e.agent.Store(a)
	return e, nil
}

// Roots are the workspace's roots, the primary (Options.Workspace)
// first, then the other folders in the editor's order, as SetRoots last
// set them.
func (e *Engine) Roots() []string { return append([]string(nil), *e.roots.Load()...) }

// SetRoots makes folders the workspace's other roots (the editor's
// workspace folders changed): every open session gets them from its next
// turn (agent.Agent.SetRoots), and a session the front end starts after
// takes them from Roots. The primary root stays Options.Workspace, the
// root the sidecars were told of; a folder that is not a directory is
// left out, and the error names it. The plugins' commands, skills,
// project memory and MCP roots follow at their next build (the running
// generation keeps what it was built with, so a turn's system prompt
// does not change under it).
func (e *Engine) SetRoots(folders []string) error {
	var errs []error
	keep := make([]string, 0, len(folders))
	for _, f := range folders {
		if st, err := os.Stat(f); err != nil || !st.IsDir() {
			errs = append(errs, fmt.Errorf("workspace folder %s is not a directory", f))
			continue
		}
		keep = append(keep, f)
	}
	roots := workspaceRoots(e.opts.Workspace, keep)
	e.roots.Store(&roots)
	if e.Runtime != nil {
		e.Runtime.SetFolders(roots[1:])
	}
	if a := e.agent.Load(); a != nil {
		errs = append(errs, a.SetRoots(roots))
	}
	return errors.Join(errs...)
}

// workspaceRoots is primary then the folders that are not it, each once.
func workspaceRoots(primary string, folders []string) []string {
	roots := []string{primary}
	for _, f := range folders {
		if !slices.Contains(roots, f) {
			roots = append(roots, f)
		}
	}
	return roots
}

// configModel is the model the running generation's config.toml names
// ("" for none, or before the first build of a deferred runtime).
func (e *Engine) configModel() string {
	if snap := e.Runtime.Current(); snap != nil && snap.Home != nil {
		return snap.Home.Config.Model
	}
	return ""
}

// services hands the sidecars' UI traffic to the hub, naming the session
// exthost attributed it to (the session whose call into the plugin is
// outstanding; docs/ARCHITECTURE.md "Which session plugin UI belongs
// to").
func (e *Engine) services() exthost.Services {
	return exthost.Services{
		UIRequest: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIRequestParams) (*extproto.UIRequestResult, error) {
			return e.Hub.Request(editorui.ForSession(ctx, exthost.SessionOf(ctx)), sc.Plugin.ID, p)
		},
		UIPublish: func(ctx context.Context, sc *exthost.Sidecar, p *extproto.UIPublishParams) (*extproto.UIPublishResult, error) {
			return e.Hub.Publish(editorui.ForSession(ctx, exthost.SessionOf(ctx)), sc.Plugin.ID, p)
		},
		OnCrash: e.opts.OnCrash,
	}
}

// onBuild runs before every build: it waits until no turn runs, then
// lets the front end see the build; after a build that succeeded the hub
// is bound to the new generation before the front end hears of it.
func (e *Engine) onBuild(ctx context.Context) (func(*pluginrt.Snapshot, error), error) {
	if a := e.agent.Load(); a != nil {
		if err := a.Idle(ctx); err != nil {
			return nil, err
		}
	}
	var after func(*pluginrt.Snapshot, error)
	if e.opts.OnBuild != nil {
		var err error
		if after, err = e.opts.OnBuild(ctx); err != nil {
			return nil, err
		}
	}
	return func(snap *pluginrt.Snapshot, err error) {
		if err == nil {
			e.Hub.Bind(snap.ID, snap.Actions)
		}
		if after != nil {
			after(snap, err)
		}
	}, nil
}

// mcpNotice puts an MCP server's notice in every open session, then
// hands it to the front end.
func (e *Engine) mcpNotice(n mcphost.Notice) {
	if a := e.agent.Load(); a != nil {
		a.MCPNotice(n)
	}
	if e.opts.MCPNotice != nil {
		e.opts.MCPNotice(n)
	}
}

// mcpElicit asks an MCP server's elicitation through the hub, the path
// plugin questions take: a schema the editor cannot ask, or an answer
// that does not fit it, declines; a dismissed question cancels.
func (e *Engine) mcpElicit(ctx context.Context, el mcphost.Elicitation) (mcphost.ElicitResult, error) {
	form, err := editorui.ParseElicitation(el.Schema)
	if err != nil {
		e.opts.Warn("mcp server " + el.Server + ": elicitation declined: " + redact.String(err.Error()))
		return mcphost.ElicitResult{Action: mcphost.ElicitDecline}, nil
	}
	a, err := e.Hub.Ask(ctx, el.Server, "mcp-elicitation", el.Server, el.Message, form.Fields)
	if err != nil {
		return mcphost.ElicitResult{}, err
	}
	if a.Cancelled {
		return mcphost.ElicitResult{Action: mcphost.ElicitCancel}, nil
	}
	content, err := form.Content(a.Values)
	if err != nil {
		e.opts.Warn("mcp server " + el.Server + ": elicitation declined: " + err.Error())
		return mcphost.ElicitResult{Action: mcphost.ElicitDecline}, nil
	}
	return mcphost.ElicitResult{Action: mcphost.ElicitAccept, Content: content}, nil
}

// mcpProgress shows an MCP tool call's progress: the front end's way, or
// as the server's status item.
func (e *Engine) mcpProgress(p mcphost.Progress) {
	if e.opts.MCPProgress != nil {
		e.opts.MCPProgress(p)
		return
	}
	st := editorui.Status{Origin: editorui.Origin{Plugin: p.Server, SurfaceID: "mcp-progress"}, Label: p.Tool, Detail: ProgressText(p)}
	if p.Done {
		st.Detail = locale.T("done")
	} else if p.Total > 0 {
		f := min(p.Progress/p.Total, 1)
		st.Progress = &f
	}
	e.Hub.ShowStatus(context.Background(), st)
}

// ProgressText is an MCP progress report in words: "3/5 message", "3
// message" when the total is unknown.
func ProgressText(p mcphost.Progress) string {
	n := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		n += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		n += " " + p.Message
	}
	return n
}

// openURL opens an MCP server's authorization page through the front
// end, or shows its URL as a notice.
func (e *Engine) openURL(ctx context.Context, server, url string) error {
	if e.opts.OpenURL != nil && e.opts.OpenURL(ctx, url) == nil {
		return nil
	}
	e.mcpNotice(mcphost.Notice{Server: server, Text: locale.T("%s needs your authorization: open %s", server, redact.KnownSecrets(url))})
	return nil
}

// Close closes the agent's sessions, the hub and the runtime, in that
// order (session.end reaches the plugins before they stop); the error is
// the agent's (a session that could not be stored).
func (e *Engine) Close(ctx context.Context) error {
	err := e.Agent.Close(ctx)
	e.Hub.Close()
	e.Runtime.Close()
	return err
}
