package bridge

import (
	"context"

	"go.lsp.dev/protocol"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/engine"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/locale"
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

// openEngine opens the engine of this connection (hub, runtime, agent)
// with the editor as the plugins' UI and the agent's editor; its first
// generation is built by startPlugins, after initialized.
func (s *Server) openEngine() error {
	eng, err := engine.Open(s.ctx, engine.Options{
		Home:      s.opts.Home,
		UserHome:  s.opts.UserHome,
		Workspace: s.workspace,
		Roots:     s.folders,
		SessionID: s.session,
		Deferred:  true,
		UI:        &editorUI{s: s},
		Submit:    s.submitForm,
		Editor:    &agentEditor{s: s},
		OnUpdate:  s.onUpdate,
		Logger:    s.log,
		// The agent shows an extension allow over a host deny as an
		// audit notice of its session.
		Audit:       func(string) {},
		Trace:       s.traceWire,
		OnCrash:     s.onCrash,
		MCPNotice:   s.mcpNotice,
		OnBuild:     s.onBuild,
		OpenURL:     s.openExternal,
		MCPProgress: s.mcpProgress,
	})
	if err != nil {
		return err
	}
	s.eng, s.hub, s.agent = eng, eng.Hub, eng.Agent
	s.rt = &runtime{set: eng.Runtime}
	s.rt.status = newStatusWriter(s)
	return nil
}

// onBuild runs before every build of the set, once the engine has
// waited for running turns: the editor sees the build's progress, its
// warnings, the new generation's actions (the engine has bound the hub
// to it) and a status update.
func (s *Server) onBuild(ctx context.Context) (func(*pluginrt.Snapshot, error), error) {
	done := s.beginProgress(locale.T("Reasonix: starting plugins"))
	return func(snap *pluginrt.Snapshot, err error) {
		s.rt.status.update()
		if err != nil {
			done(locale.T("failed"))
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
		s.actionsChanged(snap.Gen, snap.Warnings)
		done(locale.T("generation %d: %d plugin(s)", snap.ID, len(snap.Gen.Sidecars)))
	}, nil
}

// mcpNotice shows an MCP server's notice: the engine has put it in every
// open chat session (agent.MCPNotice); a failure (a server that could not start or
// stopped, its tools gone) also as a warning the editor shows; a change of a server's tools or
// prompts also refreshes the editor's command list (MCP prompts are
// slash commands). The text is redacted by mcphost.
func (s *Server) mcpNotice(n mcphost.Notice) {
	text := "MCP server " + n.Server + ": " + n.Text
	switch {
	case n.Error:
		s.notify("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: "Reasonix: " + locale.T("MCP server") + " " + n.Server + ": " + n.Text})
		s.log.Warn(text)
	case n.Text != "":
		s.log.Info(text)
	}
	if n.ToolsChanged && s.life.initialized() && s.rt != nil {
		snap := s.rt.set.Current()
		s.actionsChanged(snap.Gen, []string{})
	}
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
