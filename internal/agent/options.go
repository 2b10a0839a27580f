package agent

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/agent/tools"
	"github.com/rx-bridge/rx-bridge/internal/exthost"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
	"github.com/rx-bridge/rx-bridge/internal/providers"
)

// Runtime is the plugin runtime turns run on; *pluginrt.Set implements
// it through Pinning. Acquire pins the running generation for one turn (or
// one session point outside a turn); release unpins it.
type Runtime interface {
	Acquire() (p Pinned, release func())
}

// Pinned is one generation pinned for a turn: its hook points, its
// observers and its models. Who observes or rules a point is exthost's
// rule (Generation.Observed, Generation.Rules); the agent only asks.
type Pinned interface {
	Intercept(ctx context.Context, point extproto.HookPoint, p extproto.Payload) (exthost.Outcome, error)
	// Event sends point to its observers without waiting and returns the
	// warnings of events it had to drop.
	Event(point extproto.HookPoint, p extproto.Payload) []string
	Observed(point extproto.HookPoint) bool
	Rules(point extproto.HookPoint) bool
	// Empty reports whether no plugin runs, so no call can reach a
	// sidecar.
	Empty() bool
	// Prompt is the system prompt the generation settled ("" for none).
	Prompt() string
	// Models is the generation's catalog, so plugin providers stream from
	// the sidecars of the pinned generation.
	Models() *providers.Catalog
	// Markdown is the packages' commands, prompts, skills and agents,
	// Hooks their hook runner, MCP their MCP servers; each nil when the
	// generation has none.
	Markdown() *plugincontent.Set
	Hooks() *hookrun.Runner
	MCP() *mcphost.Host
}

// Pinning adapts an Acquire method whose result implements Pinned, such
// as (*pluginrt.Set).Acquire, to Runtime.
func Pinning[P Pinned](acquire func() (P, func())) Runtime { return pinning[P](acquire) }

type pinning[P Pinned] func() (P, func())

func (f pinning[P]) Acquire() (Pinned, func()) { return f() }

// Static is a runtime without plugins serving models: for hosts and tests
// whose catalog does not depend on plugins.
func Static(models *providers.Catalog) Runtime {
	return static{g: exthost.NewManager(exthost.ManagerOptions{}).Current(), cat: models}
}

type static struct {
	g   *exthost.Generation
	cat *providers.Catalog
}

func (s static) Acquire() (Pinned, func()) { return s, func() {} }
func (s static) Intercept(ctx context.Context, point extproto.HookPoint, p extproto.Payload) (exthost.Outcome, error) {
	return s.g.Intercept(ctx, point, p)
}
func (s static) Event(point extproto.HookPoint, p extproto.Payload) []string {
	return s.g.Event(point, p)
}
func (s static) Observed(point extproto.HookPoint) bool { return s.g.Observed(point) }
func (s static) Rules(point extproto.HookPoint) bool    { return s.g.Rules(point) }
func (s static) Empty() bool                            { return true }
func (s static) Prompt() string                         { return s.g.SystemPrompt }
func (s static) Models() *providers.Catalog             { return s.cat }
func (s static) Markdown() *plugincontent.Set           { return nil }
func (s static) Hooks() *hookrun.Runner                 { return nil }
func (s static) MCP() *mcphost.Host                     { return nil }

// Models is the model catalog a turn uses; *providers.Catalog implements
// it.
type Models interface {
	Lookup(ref string) (providers.Model, error)
	Open(ctx context.Context, ref, effort string, body extproto.ProviderRequest) (providers.Stream, error)
}

// Approval is how a session gets permission to run a tool: ask (reads
// run, edits, commands and MCP tools not marked read-only are asked
// for), auto (edits run too) or yolo (nothing is asked). Decide is the
// whole table.
type Approval string

// The approval modes.
const (
	ApproveAsk  Approval = "ask"
	ApproveAuto Approval = "auto"
	ApproveYolo Approval = "yolo"
)

// Settings are the host's settings for every session (its config file's
// values); zero members take the defaults.
type Settings struct {
	// Model is the default model ref of a new session, after the
	// workspace's (Options.WorkspaceModel).
	Model string
	// Approval is the approval mode (default ask).
	Approval Approval
	// Steps is the step budget of a turn in model requests (default
	// DefaultSteps).
	Steps int
	// ToolTimeout bounds one tool call (default DefaultToolTimeout).
	ToolTimeout time.Duration
}

// Defaults of Settings.
const (
	DefaultSteps       = 25
	DefaultToolTimeout = 2 * time.Minute
)

// Options configure an Agent.
type Options struct {
	// Home is the bridge home; transcripts live in <Home>/sessions.
	Home string
	// Settings supply the approval mode, step budget, tool timeout and
	// default model.
	Settings Settings
	// ConfigModel returns the home config's model as it is now ("" for
	// none), after Settings.Model: a home set up while the agent runs
	// (rx-bridge setup, then a reload) gives sessions started without a
	// model their model. nil means Settings.Model only.
	ConfigModel func() string
	// WorkspaceModel returns the default model a workspace names ("" for
	// none), for local workspaces; nil means none does.
	WorkspaceModel func(root string) (string, error)
	// Runtime supplies the generation each turn pins, with its models.
	// Required.
	Runtime Runtime
	// Editor serves documents, edits and permission prompts. Required.
	Editor Editor
	// OnUpdate receives every update of every session, in order, on the
	// goroutine running the turn (or Load; MCPNotice's caller for its
	// notices), one call at a time per session. It must not block for
	// long.
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
	// MCPStartWait bounds how long a turn waits, before its first round,
	// for MCP servers still starting on a cold schema cache (0: 30 s,
	// mcphost.DefaultStartupTimeout).
	MCPStartWait time.Duration
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
	if o.Runtime == nil {
		return errors.New("agent: Options.Runtime is required")
	}
	if o.Editor == nil {
		return errors.New("agent: Options.Editor is required")
	}
	if o.Home == "" {
		return errors.New("agent: Options.Home is required")
	}
	if o.Settings.Approval == "" {
		o.Settings.Approval = ApproveAsk
	}
	if o.Settings.Steps <= 0 {
		o.Settings.Steps = DefaultSteps
	}
	if o.Settings.ToolTimeout <= 0 {
		o.Settings.ToolTimeout = DefaultToolTimeout
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
