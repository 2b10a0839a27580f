package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/rx-bridge/rx-bridge/agent"
	"github.com/rx-bridge/rx-bridge/exthost"
	"github.com/rx-bridge/rx-bridge/manifest"
	"github.com/rx-bridge/rx-bridge/providers"
	"github.com/rx-bridge/rx-bridge/providers/openai"
)

// hostRuntime is the plugin runtime of the bridge home for the one-shot
// verbs (models, complete, hook): the home, the running generation and the
// model catalog over built-in and plugin providers. Close stops every
// sidecar; the verbs defer it, and cancel their context on SIGINT/SIGTERM,
// so no sidecar outlives the command.
type hostRuntime struct {
	home     *manifest.Home
	dir      string // the home directory
	ws       string // the absolute workspace root
	mgr      *exthost.Manager
	gen      *exthost.Generation
	catalog  *providers.Catalog
	problems []string // redacted reasons some plugins are not running
	cleanup  []func()
}

// runtimeOptions adapt startRuntime to a verb: the session id the
// sidecars are told about, where their UI traffic goes, and where audit
// notes go. The zero value suits verbs without UI.
type runtimeOptions struct {
	SessionID string
	Services  exthost.Services
	Audit     func(note string)
}

// startRuntime loads the home named by the environment and starts the
// runtimes its install records allow. workspace is the workspace root the
// sidecars are told about (the current directory when empty).
func startRuntime(ctx context.Context, getenv func(string) string, workspace string, opts runtimeOptions) (*hostRuntime, error) {
	dir, err := manifest.ResolveHome(getenv)
	if err != nil {
		return nil, err
	}
	home, err := manifest.LoadHome(dir)
	if err != nil {
		return nil, err
	}
	if workspace == "" {
		if workspace, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if workspace, err = filepath.Abs(workspace); err != nil {
		return nil, err
	}
	if opts.SessionID == "" {
		opts.SessionID = "cli"
	}
	rt := &hostRuntime{home: home, dir: dir, ws: workspace, catalog: &providers.Catalog{}}
	if err := rt.addBuiltins(home.Config, filepath.Join(dir, manifest.ConfigFile)); err != nil {
		rt.Close()
		return nil, err
	}
	plugins, problems := exthost.PluginsFromHome(home)
	rt.problems = append(home.Warnings, problems...)
	rt.mgr = exthost.NewManager(exthost.ManagerOptions{
		SessionID:     opts.SessionID,
		WorkspaceRoot: workspace,
		SystemPrompt:  agent.DefaultSystemPrompt(workspace),
		Services:      opts.Services,
		Audit:         opts.Audit,
		Logger:        slog.New(slog.DiscardHandler),
	})
	rt.cleanup = append(rt.cleanup, rt.mgr.Close)
	if len(plugins) > 0 {
		if rt.gen, err = rt.mgr.Load(ctx, plugins); err != nil {
			rt.Close()
			return nil, err
		}
		rt.problems = append(rt.problems, rt.gen.Warnings...)
	} else {
		rt.gen = rt.mgr.Current()
	}
	if err := providers.AddGeneration(ctx, rt.catalog, rt.gen); err != nil {
		rt.Close()
		return nil, err
	}
	return rt, nil
}

// addBuiltins adds the [[providers.openai]] servers of config.toml.
func (rt *hostRuntime) addBuiltins(cfg *manifest.Config, path string) error {
	var section struct {
		OpenAI []openai.Config `toml:"openai"`
	}
	if err := cfg.DecodeSection("providers", &section); err != nil {
		return err
	}
	for i, c := range section.OpenAI {
		p, err := openai.New(c)
		if err != nil {
			return fmt.Errorf("%s: [[providers.openai]] #%d: %w", path, i+1, err)
		}
		rt.cleanup = append(rt.cleanup, p.Close)
		if err := rt.catalog.Add(p); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

// Close stops every sidecar and releases the providers, in reverse order.
func (rt *hostRuntime) Close() {
	for i := len(rt.cleanup) - 1; i >= 0; i-- {
		rt.cleanup[i]()
	}
	rt.cleanup = nil
}
