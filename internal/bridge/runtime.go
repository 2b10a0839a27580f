package bridge

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// runtime is the plugin side of one connection: the runtime set (package
// pluginrt owns generations, catalogs, failures and the reload queue) and
// the plugin status file kept for `rx-bridge plugin list`.
type runtime struct {
	set    *pluginrt.Set
	status *statusWriter
}

// newRuntime opens the home's runtime set for this connection; its first
// generation is built by startPlugins, after initialized.
func newRuntime(s *Server) (*runtime, error) {
	set, err := pluginrt.Open(s.ctx, pluginrt.Options{
		Home:         s.opts.Home,
		SessionID:    s.session,
		Workspace:    s.workspace,
		SystemPrompt: agent.DefaultSystemPrompt(s.workspace),
		Services:     s.services(),
		Logger:       s.log,
		Trace:        s.traceWire,
		Deferred:     true,
		OnBuild:      s.onBuild,
		UserHome:     s.opts.UserHome,
		MCPNotice:    s.mcpNotice,
	})
	if err != nil {
		return nil, err
	}
	r := &runtime{set: set}
	r.status = newStatusWriter(s)
	return r, nil
}

// onBuild runs before every build of the set: a reload waits until no
// agent turn runs, and the editor sees the build's progress, its warnings,
// the new generation's actions and a status update.
func (s *Server) onBuild(ctx context.Context) (func(*pluginrt.Snapshot, error), error) {
	if err := s.turns.idle(ctx); err != nil {
		return nil, err
	}
	done := s.beginProgress("Reasonix: starting plugins")
	return func(snap *pluginrt.Snapshot, err error) {
		s.rt.status.update()
		if err != nil {
			done("failed")
			if tail := exthost.StderrOf(err); tail != "" {
				s.log.Error(redact.String(err.Error()), "stderr", tail)
			} else {
				s.log.Error(redact.String(err.Error()))
			}
			return
		}
		for _, w := range snap.Warnings {
			s.log.Warn(w)
		}
		s.hub.Bind(snap.ID, snap.Actions)
		s.actionsChanged(snap.Gen, snap.Warnings)
		done(fmt.Sprintf("generation %d: %d plugin(s)", snap.ID, len(snap.Gen.Sidecars)))
	}, nil
}

// mcpNotice shows an MCP server's notice: in every open chat session
// (agent.MCPNotice), and a failure (a server that could not start or
// stopped, its tools gone) also as a warning the editor shows; a change of a server's tools or
// prompts also refreshes the editor's command list (MCP prompts are
// slash commands). The text is redacted by mcphost.
func (s *Server) mcpNotice(n mcphost.Notice) {
	text := "MCP server " + n.Server + ": " + n.Text
	if a := s.agent; a != nil {
		a.MCPNotice(n) // a line in every open chat
	}
	switch {
	case n.Error:
		s.notify("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Reasonix: " + text})
		s.log.Warn(text)
	case n.Text != "":
		s.log.Info(text)
	}
	if n.ToolsChanged && s.life.initialized() && s.rt != nil {
		snap := s.rt.set.Current()
		s.actionsChanged(snap.Gen, []string{})
	}
}

// agentSettings are the agent's settings from the home's config.toml.
func agentSettings(cfg *manifest.Config) agent.Settings {
	return agent.Settings{Model: cfg.Model, Approval: agent.Approval(cfg.Approval()), Steps: cfg.Steps(), ToolTimeout: cfg.ToolTimeout()}
}

// hookPoints are the points some plugin of g intercepts.
func hookPoints(g *exthost.Generation) []string {
	out := []string{}
	for _, pt := range extproto.HookPoints {
		if len(g.Chain(pt)) > 0 {
			out = append(out, string(pt))
		}
	}
	return out
}

func (r *runtime) close() {
	r.status.close()
	r.set.Close()
}

// startPlugins runs after initialized.
func (s *Server) startPlugins(ctx context.Context) {
	if _, err := s.rt.set.Reload(ctx); err != nil {
		s.log.Error("plugins did not start: " + redact.String(err.Error()))
	}
}
