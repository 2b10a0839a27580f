package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/rx-bridge/rx-bridge/extproto"
)

// ConfigFile is the bridge home's configuration file.
const ConfigFile = "config.toml"

// Config is <home>/config.toml. Zero values mean "the default"; use the
// accessor methods rather than the fields where a default exists. New
// sections are added as new fields with their own toml tag; until a section
// exists its keys are unknown and therefore errors, so a typo never silently
// does nothing. A section owned by a package this one may not import (the
// built-in providers) is kept undecoded and handed over with DecodeSection,
// which applies the same unknown-key rule.
type Config struct {
	// Model is the default model ref for new agent sessions
	// (<provider>/<model> or plugin/<plugin>/<provider>/<model>).
	Model string `toml:"model"`
	// ToolApproval is how tool calls are approved: ask, auto or yolo.
	ToolApproval ApprovalMode `toml:"tool_approval"`
	// StepBudget caps the provider rounds of one agent turn.
	StepBudget int `toml:"step_budget"`
	// ReasonixHome, when set, also runs the plugins installed in that
	// Reasonix home; this home's records win on a name clash.
	ReasonixHome string `toml:"reasonix_home"`
	// Timeouts tunes host-side bounds.
	Timeouts Timeouts `toml:"timeouts"`
	// UI holds editor display preferences (also settable per workspace).
	UI UIConfig `toml:"ui"`
	// Hooks says which hooks beyond the plugins' and the user's run.
	Hooks HooksConfig `toml:"hooks"`
	// Plugins holds per-plugin settings keyed by installed name.
	Plugins map[string]PluginConfig `toml:"plugins"`
	// Providers is the [providers] section (e.g. [[providers.openai]]),
	// decoded by its owner through DecodeSection.
	Providers toml.Primitive `toml:"providers"`
	// MCPServers is the [mcp_servers.<name>] section, decoded by mcphost
	// through DecodeSection.
	MCPServers toml.Primitive `toml:"mcp_servers"`

	path string
	src  string
	md   toml.MetaData
}

// deferredSections are top-level keys another package decodes.
var deferredSections = map[string]bool{"providers": true, "mcp_servers": true}

// ApprovalMode is how the agent gets permission to run a tool.
type ApprovalMode string

// The approval modes: ask about edits, commands and MCP tools not
// marked read-only; auto, which lets edits run too; yolo, which asks
// about nothing (the agent's approval table, docs/ARCHITECTURE.md).
const (
	ApproveAsk  ApprovalMode = "ask"
	ApproveAuto ApprovalMode = "auto"
	ApproveYolo ApprovalMode = "yolo"
)

// Timeouts are host-side bounds; zero means the default.
type Timeouts struct {
	// Startup bounds starting one runtime generation (default 30s).
	Startup Duration `toml:"startup"`
	// Shutdown bounds a sidecar's graceful shutdown (default 5s).
	Shutdown Duration `toml:"shutdown"`
	// Tool bounds one built-in tool call of an agent turn (default 2m).
	Tool Duration `toml:"tool"`
}

// UIConfig are editor display preferences.
type UIConfig struct {
	// Theme is a theme id, e.g. plugin:<plugin>:<name>.
	Theme string `toml:"theme"`
	// ShowThoughts shows model reasoning in agent transcripts.
	ShowThoughts *bool `toml:"show_thoughts"`
}

// HooksConfig is the [hooks] table.
type HooksConfig struct {
	// Project = true runs the hooks of a workspace's
	// .reasonix/settings.json (Reasonix runs them always). Off by default:
	// opening a repository must not start the programs it names.
	Project bool `toml:"project"`
}

// PluginConfig is the [plugins.<name>] table.
type PluginConfig struct {
	// Enabled = false disables an installed plugin without touching its
	// record (the only way to disable one from a Reasonix home). true
	// cannot enable a plugin its record disables: only the record trusts.
	Enabled *bool `toml:"enabled"`
}

// Duration is a TOML string such as "30s" or "2m".
type Duration struct{ time.Duration }

// MarshalText writes the duration as UnmarshalText reads it.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a positive Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q: want a duration such as \"30s\" or \"2m\"", b)
	}
	if v <= 0 {
		return fmt.Errorf("duration %q must be positive", b)
	}
	d.Duration = v
	return nil
}

// Default values of Config.
const (
	DefaultStepBudget      = 25
	DefaultStartupTimeout  = extproto.GenerationStartBudget
	DefaultShutdownTimeout = extproto.ShutdownTimeout
	DefaultToolTimeout     = 2 * time.Minute
)

// Approval returns the approval mode, ask by default.
func (c *Config) Approval() ApprovalMode {
	if c.ToolApproval == "" {
		return ApproveAsk
	}
	return c.ToolApproval
}

// Steps returns the step budget, DefaultStepBudget by default.
func (c *Config) Steps() int {
	if c.StepBudget == 0 {
		return DefaultStepBudget
	}
	return c.StepBudget
}

// StartupTimeout, ShutdownTimeout and ToolTimeout return the configured
// bound or its default.
func (c *Config) StartupTimeout() time.Duration {
	return orDefault(c.Timeouts.Startup, DefaultStartupTimeout)
}

// ShutdownTimeout: see StartupTimeout.
func (c *Config) ShutdownTimeout() time.Duration {
	return orDefault(c.Timeouts.Shutdown, DefaultShutdownTimeout)
}

// ToolTimeout: see StartupTimeout.
func (c *Config) ToolTimeout() time.Duration { return orDefault(c.Timeouts.Tool, DefaultToolTimeout) }

func orDefault(d Duration, def time.Duration) time.Duration {
	if d.Duration == 0 {
		return def
	}
	return d.Duration
}

// PluginDisabled reports whether the config disables the named plugin.
func (c *Config) PluginDisabled(name string) bool {
	p, ok := c.Plugins[name]
	return ok && p.Enabled != nil && !*p.Enabled
}

// LoadConfig reads a config.toml. A missing file is the default config;
// a malformed one, an unknown key or an invalid value is an *Error naming
// the file and line.
func LoadConfig(path string) (*Config, error) {
	c := &Config{}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	return parseConfig(path, data)
}

// parseConfig is LoadConfig of the file's content.
func parseConfig(path string, data []byte) (*Config, error) {
	c := &Config{}
	src := string(data)
	md, ps := decodeTOML(src, c, func(k toml.Key) (toml.Key, string) {
		if deferredSections[k[0]] {
			return k, ""
		}
		return firstUnknown(k, configKeys)
	})
	c.path, c.src, c.md = path, src, md
	if len(ps) == 0 {
		ps = c.validate(src, md)
	}
	if err := ps.err(path); err != nil {
		return nil, err
	}
	return c, nil
}

// configKeys are the keys config.toml allows at the level ending with
// level's last part; nil means any name (plugins.<name>).
func configKeys(level toml.Key) []string {
	switch {
	case len(level) == 1:
		return []string{"model", "tool_approval", "step_budget", "reasonix_home", "timeouts", "ui", "hooks", "plugins", "providers", "mcp_servers"}
	case len(level) == 2 && level[0] == "timeouts":
		return []string{"startup", "shutdown", "tool"}
	case len(level) == 2 && level[0] == "ui":
		return uiKeys
	case len(level) == 2 && level[0] == "hooks":
		return []string{"project"}
	case len(level) == 2 && level[0] == "plugins":
		return nil
	case len(level) == 3 && level[0] == "plugins":
		return []string{"enabled"}
	}
	return []string{}
}

var uiKeys = []string{"theme", "show_thoughts"}

func (c *Config) validate(src string, md toml.MetaData) problems {
	var ps problems
	at := func(key ...string) (string, int) { return strings.Join(key, "."), keyLine(src, key) }
	add := func(msg string, key ...string) {
		p, line := at(key...)
		ps = append(ps, Problem{Path: p, Msg: msg, Line: line})
	}
	if c.Model != "" {
		if err := extproto.ValidateProviderRef(c.Model); err != nil {
			add(err.Error(), "model")
		}
	}
	switch c.ToolApproval {
	case "", ApproveAsk, ApproveAuto, ApproveYolo:
		if md.IsDefined("tool_approval") && c.ToolApproval == "" {
			add(`unknown mode "" (want ask, auto or yolo)`, "tool_approval")
		}
	default:
		add(fmt.Sprintf("unknown mode %q (want ask, auto or yolo)", c.ToolApproval), "tool_approval")
	}
	if md.IsDefined("step_budget") && c.StepBudget < 1 {
		add(fmt.Sprintf("%d must be at least 1", c.StepBudget), "step_budget")
	}
	if md.IsDefined("reasonix_home") {
		if h := c.ReasonixHome; !filepath.IsAbs(h) && !strings.HasPrefix(h, "~/") {
			add(fmt.Sprintf("%q must be an absolute path or start with ~/", h), "reasonix_home")
		}
	}
	for _, name := range sortedKeys(c.Plugins) {
		if err := ValidateName(name); err != nil {
			add(err.Error(), "plugins", name)
		}
	}
	return ps
}

// ReasonixDir returns ReasonixHome with a leading ~/ expanded, or "".
func (c *Config) ReasonixDir() (string, error) {
	h, ok := strings.CutPrefix(c.ReasonixHome, "~/")
	if !ok {
		return c.ReasonixHome, nil
	}
	u, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("reasonix_home %q: %w", c.ReasonixHome, err)
	}
	return filepath.Join(u, h), nil
}

// DecodeSection decodes a deferred section ("providers", "mcp_servers") into
// v, which describes that section's content. A key v has no place for is
// an *Error with the file and line, like every other key of the file. An
// absent section leaves v untouched.
func (c *Config) DecodeSection(section string, v any) error {
	prim, ok := map[string]toml.Primitive{"providers": c.Providers, "mcp_servers": c.MCPServers}[section]
	if !ok {
		return fmt.Errorf("config section %q is not a deferred section", section)
	}
	if !c.md.IsDefined(section) {
		return nil
	}
	var ps problems
	if err := c.md.PrimitiveDecode(prim, v); err != nil {
		ps = append(ps, tomlProblem(c.src, err))
	} else {
		undecoded := c.md.Undecoded()
		for _, k := range undecoded {
			if k[0] != section || hasUndecodedParent(k, undecoded) {
				continue
			}
			ps = append(ps, Problem{Path: k.String(), Msg: "unknown field", Line: keyLine(c.src, k)})
		}
	}
	return ps.err(c.path)
}
