package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/internal/agent"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/pluginrt"
)

// verbRuntime adapts the runtime set to a verb: the session id the
// sidecars are told about, where their UI traffic goes, and where audit
// notes go. The zero value suits verbs without UI.
type verbRuntime struct {
	SessionID string
	Services  exthost.Services
	Audit     func(note string)
	// MCPNotice shows the MCP servers' notices (nil drops them).
	MCPNotice func(mcphost.Notice)
}

// openRuntime opens the runtime set of the home the environment names and
// builds its first generation. workspace is the workspace root the
// sidecars are told about (the current directory when empty). The verbs
// defer Close, and cancel ctx on SIGINT/SIGTERM, so no sidecar outlives
// the command.
func openRuntime(ctx context.Context, getenv func(string) string, workspace string, opts verbRuntime) (*pluginrt.Set, string, error) {
	dir, err := manifest.ResolveHome(getenv)
	if err != nil {
		return nil, "", err
	}
	if workspace == "" {
		if workspace, err = os.Getwd(); err != nil {
			return nil, "", err
		}
	}
	if workspace, err = filepath.Abs(workspace); err != nil {
		return nil, "", err
	}
	if opts.SessionID == "" {
		opts.SessionID = "cli"
	}
	set, err := pluginrt.Open(ctx, pluginrt.Options{
		Home:         dir,
		SessionID:    opts.SessionID,
		Workspace:    workspace,
		SystemPrompt: agent.DefaultSystemPrompt(workspace),
		Services:     opts.Services,
		Audit:        opts.Audit,
		UserHome:     manifest.UserDirsHome(getenv, getenv(manifest.HomeEnv) != "", os.UserHomeDir),
		MCPNotice:    opts.MCPNotice,
	})
	if err != nil {
		return nil, "", err
	}
	// A verb runs on the catalog config.toml asks for, or not at all.
	if err := set.Current().CatalogErr; err != nil {
		set.Close()
		return nil, "", err
	}
	return set, workspace, nil
}
