package pluginrt

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/providers"
	"github.com/rx-bridge/rx-bridge/internal/redact"
)

// Snapshot is one generation as its build left it: immutable once
// built. Pinned by Set.Acquire, it serves a turn or a request from start
// to end, even while a reload swaps in a successor.
type Snapshot struct {
	// ID is the generation number (0: before the first build).
	ID int64
	// Gen is the generation: its sidecars, for calls into them.
	Gen *exthost.Generation
	// Home is the home as the build read it (nil for the closed-set
	// fallback of Set.Acquire).
	Home *manifest.Home
	// Catalog is every model the generation serves: the built-ins of the
	// home's config.toml, then the plugins' providers.
	Catalog *providers.Catalog
	// CatalogErr says what the catalog left out, if anything: built-ins
	// config.toml configures but that cannot be read (all built-ins are
	// then left out), or plugin providers that conflict (all plugin
	// providers are then left out). It is also the last of Warnings.
	CatalogErr error
	// Actions are the plugins' UI actions: sorted, deduplicated, labels redacted (exthost builds the list).
	Actions extproto.Actions
	// Warnings are everything the build left out or could not start, in
	// order, redacted: the home's warnings, the records that cannot start,
	// the generation's warnings, the catalog's.
	Warnings []string
	// Failures are the optional runtimes that failed to start, by plugin.
	Failures map[string]Failure
	// Contents are the packages' other contributions (nil for generation
	// 0 and the closed-set fallback: no package is loaded there).
	Contents *Contents

	release func() // the built-in providers'
	session string // the runtime's session, which actions are stamped with
}

// RunAction runs the UI action name ("/<plugin>:<action>") of the
// generation with args, stamped with the runtime's session
// (agent.ActionRunner); declared is false, and nothing runs, when no
// plugin of the generation declares it. The message is redacted.
func (s *Snapshot) RunAction(ctx context.Context, name string, args map[string]string) (*extproto.UIActionResult, bool, error) {
	if s.Gen == nil {
		return nil, false, nil
	}
	a, err := s.Gen.Action(name)
	if err != nil {
		return nil, false, nil
	}
	res, err := s.Gen.RunAction(ctx, s.session, a, args)
	return res, true, err
}

// Intercept runs point through the generation's chain and slot owner
// (exthost.Generation.Intercept).
func (s *Snapshot) Intercept(ctx context.Context, point extproto.HookPoint, p extproto.Payload) (exthost.Outcome, error) {
	return s.Gen.Intercept(ctx, point, p)
}

// Event sends point to its observers without waiting
// (exthost.Generation.Event); it returns the warnings of dropped events.
func (s *Snapshot) Event(point extproto.HookPoint, p extproto.Payload) []string {
	return s.Gen.Event(point, p)
}

// Observed reports whether any plugin observes point; Rules whether any
// rules it. exthost decides both, once.
func (s *Snapshot) Observed(point extproto.HookPoint) bool { return s.Gen.Observed(point) }

// Rules reports whether any plugin rules point.
func (s *Snapshot) Rules(point extproto.HookPoint) bool { return s.Gen.Rules(point) }

// Empty reports whether no sidecar runs in the generation.
func (s *Snapshot) Empty() bool { return s.Gen.Empty() }

// Prompt is the system prompt turns on this generation use.
func (s *Snapshot) Prompt() string { return s.Gen.SystemPrompt }

// Models is the generation's catalog.
func (s *Snapshot) Models() *providers.Catalog { return s.Catalog }

// Markdown is the generation's commands, prompts, skills and agents
// (nil: none); Hooks its hook runner (nil: none); MCP its MCP servers
// (nil: none).
func (s *Snapshot) Markdown() *plugincontent.Set {
	if s.Contents == nil {
		return nil
	}
	return s.Contents.Markdown
}

// Hooks is the generation's hook runner (nil: none).
func (s *Snapshot) Hooks() *hookrun.Runner {
	if s.Contents == nil {
		return nil
	}
	return s.Contents.Hooks
}

// MCP is the generation's MCP host (nil: none).
func (s *Snapshot) MCP() *mcphost.Host {
	if s.Contents == nil {
		return nil
	}
	return s.Contents.MCP
}

// releaseBuiltins releases what the snapshot holds beyond its
// generation: the built-in providers, hook processes and MCP servers.
func (s *Snapshot) releaseBuiltins() {
	if s.release != nil {
		s.release()
	}
	s.Contents.Close()
}

// Failure is why one plugin's runtime did not start.
type Failure struct {
	Plugin string
	// Required is set when the runtime is required, so its failure
	// failed the whole build (the running generation stayed).
	Required bool
	// Err is the start error (an *exthost.StartError unless the build's
	// budget ran out before the launch), as the sidecar's text left it:
	// show it through Reason.
	Err error
	// At is when the start failed; Stderr the redacted stderr tail.
	At     time.Time
	Stderr string
}

func newFailure(plugin string, required bool, err error) Failure {
	f := Failure{Plugin: plugin, Required: required, Err: err, At: time.Now(), Stderr: exthost.StderrOf(err)}
	var se *exthost.StartError
	if errors.As(err, &se) {
		f.At = se.At
	}
	return f
}

// Reason is the failure as one redacted line, worded as the build's
// warning or error.
func (f Failure) Reason() string {
	if f.Required {
		return redact.String(f.Err.Error())
	}
	return redact.String(fmt.Sprintf("%s: optional extension runtime failed to start: %v", f.Plugin, f.Err))
}
