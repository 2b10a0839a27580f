package agent

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/rx-bridge/rx-bridge/agent/tools"
	"github.com/rx-bridge/rx-bridge/exthost"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/manifest"
	"github.com/rx-bridge/rx-bridge/providers"
)

// Runtime hands out runtime generations; *exthost.Manager implements it.
type Runtime interface {
	// Acquire pins the running generation for one turn; release unpins it.
	Acquire() (g *exthost.Generation, release func())
}

// Models is the model catalog a turn uses; *providers.Catalog implements
// it.
type Models interface {
	Lookup(ref string) (providers.Model, error)
	Open(ctx context.Context, ref, effort string, body extproto.ProviderRequest) (providers.Stream, error)
}

// StaticModels serves m to every generation: for hosts whose catalog
// does not depend on the plugins that run.
func StaticModels(m Models) func(*exthost.Generation) Models {
	return func(*exthost.Generation) Models { return m }
}

// Options configure an Agent.
type Options struct {
	// Home is the bridge home; transcripts live in <Home>/sessions.
	Home string
	// Config supplies the approval mode, step budget, tool timeout and
	// default model; nil means the defaults.
	Config *manifest.Config
	// Runtime supplies the generation each turn pins; nil runs without
	// plugins.
	Runtime Runtime
	// Models returns the catalog for a pinned generation (so plugin
	// providers stream from the sidecars of that generation). Required.
	Models func(*exthost.Generation) Models
	// Editor serves documents, edits and permission prompts. Required.
	Editor Editor
	// OnUpdate receives every update of every session, in order, on the
	// goroutine running the turn (or Load). It must not block for long.
	OnUpdate func(sessionID string, u Update)
	// Tools are the tools offered to the model; nil means the built-ins.
	Tools *tools.Set

	// MaxTranscriptBytes is the live transcript size past which it is
	// rotated at the end of a turn (default 8 MiB).
	MaxTranscriptBytes int64
	// CompactAt is the fraction of the model's context window the
	// estimated prompt may reach before older turns are compacted
	// (default 0.8); KeepTurns is how many recent turns stay verbatim
	// (default 2).
	CompactAt float64
	KeepTurns int
	// MaxTokens caps each completion (0: the provider's default).
	MaxTokens int
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Now is the clock (tests set it).
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultMaxTranscriptBytes = 8 << 20
	DefaultCompactAt          = 0.8
	DefaultKeepTurns          = 2
)

func (o *Options) fill() error {
	if o.Models == nil {
		return errors.New("agent: Options.Models is required")
	}
	if o.Editor == nil {
		return errors.New("agent: Options.Editor is required")
	}
	if o.Home == "" {
		return errors.New("agent: Options.Home is required")
	}
	if o.Config == nil {
		o.Config = &manifest.Config{}
	}
	if o.Runtime == nil {
		o.Runtime = exthost.NewManager(exthost.ManagerOptions{})
	}
	if o.Tools == nil {
		o.Tools = tools.Builtins()
	}
	if o.MaxTranscriptBytes <= 0 {
		o.MaxTranscriptBytes = DefaultMaxTranscriptBytes
	}
	if o.CompactAt <= 0 || o.CompactAt > 1 {
		o.CompactAt = DefaultCompactAt
	}
	if o.KeepTurns <= 0 {
		o.KeepTurns = DefaultKeepTurns
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return nil
}
