package pluginrt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
	"github.com/rx-bridge/rx-bridge/internal/mcphost"
)

// writeTree writes files (slash paths relative to dir).
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// installTree installs a package made of files into home (linked).
func installTree(t *testing.T, home string, files map[string]string) {
	t.Helper()
	src := t.TempDir()
	writeTree(t, src, files)
	store := &manifest.Store{Dir: home}
	plan, err := store.Plan(manifest.InstallOptions{Source: src, Link: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Install(plan); err != nil {
		t.Fatal(err)
	}
}

// kitFiles is a package with one of each contribution rx-bridge serves,
// and one MCP server that cannot start.
var kitFiles = map[string]string{
	"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"kit","version":"1.0.0","contributes":{
		"commands":["commands"],"prompts":["prompts"],"skills":["skills"],"agents":["agents"],
		"hooks":{"PreToolUse":[{"match":"run_command","command":"${REASONIX_PLUGIN_ROOT}/bin/guard","args":[]}],"SessionStart":[{"contextFile":"CONTEXT.md"}]},
		"mcpServers":{"files":{"command":"${REASONIX_PLUGIN_ROOT}/bin/files","args":["--root","."]},"web":{"type":"http","url":"https://example.invalid/mcp"}}}}`,
	"commands/review.md":     "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.",
	"commands/git/commit.md": "Commit $ARGUMENTS",
	"prompts/explain.md":     "---\ndescription: Explain\n---\nExplain $ARGUMENTS.",
	"skills/plan/SKILL.md":   "---\ndescription: Plan the work\n---\nMake a plan.",
	"agents/reviewer.md":     "---\nname: reviewer\ndescription: Reviews diffs\n---\nYou review.",
	"CONTEXT.md":             "context",
}

// TestPackageContents: each contribution of a package is listed for it,
// the way a generation serves it, and another package's are not.
func TestPackageContents(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	installTree(t, dir, kitFiles)
	installTree(t, dir, map[string]string{
		"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"other","version":"1.0.0","contributes":{"commands":["commands"]}}`,
		"commands/x.md":        "x",
	})
	home, err := manifest.LoadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := home.Record("kit")
	c, warns := LoadPackage(home, r, t.TempDir(), mcphost.Client{})
	defer c.Close()
	if len(warns) != 0 {
		t.Errorf("warnings = %q", warns)
	}
	p := c.Package("kit")
	var cmds []string
	for _, cmd := range p.Commands {
		cmds = append(cmds, cmd.Name+"|"+string(cmd.Kind)+"|"+cmd.ArgHint+"|"+cmd.Description)
	}
	want := []string{"kit:explain|prompts||Explain", "kit:git:commit|commands||", "kit:review|commands|<file>|Review a file"}
	if !reflect.DeepEqual(cmds, want) {
		t.Errorf("commands = %q\nwant %q", cmds, want)
	}
	if len(p.Skills) != 1 || p.Skills[0].SlashName() != "kit:plan" || len(p.Agents) != 1 || p.Agents[0].SlashName() != "kit:agent:reviewer" {
		t.Errorf("skills = %+v, agents = %+v", p.Skills, p.Agents)
	}
	var hooks []string
	for _, h := range p.Hooks {
		hooks = append(hooks, string(h.Event)+" "+h.Match+" "+h.Label())
	}
	if len(hooks) != 2 || !strings.HasPrefix(hooks[0], "PreToolUse run_command ") || !strings.HasSuffix(hooks[0], "guard") || !strings.HasPrefix(hooks[1], "SessionStart  context:") || !strings.HasSuffix(hooks[1], "CONTEXT.md") {
		t.Errorf("hooks = %q", hooks)
	}
	if len(p.MCP) != 2 || p.MCP[0].Name != "files" || p.MCP[0].Type != "stdio" || p.MCP[1].Type != "http" || p.MCP[1].Target != "https://example.invalid/mcp" {
		t.Fatalf("mcp = %+v", p.MCP)
	}
	for _, st := range p.MCP {
		if st.State != mcphost.StateDisabled {
			t.Errorf("LoadPackage started %s: %+v", st.Name, st)
		}
	}
	if o := c.Package("other"); len(o.Commands) != 0 {
		t.Errorf("LoadPackage(kit) served other's commands: %+v", o.Commands)
	}
	if n := c.Package("nobody"); n.Commands != nil || n.Hooks != nil || n.MCP != nil {
		t.Errorf("unknown plugin = %+v", n)
	}
	var nilContents *Contents
	if n := nilContents.Package("kit"); n.Commands != nil {
		t.Errorf("nil contents = %+v", n)
	}
}

// TestPackageContentsWarnings: what a package contributes but cannot be
// served is a warning of that package, with the reason.
func TestPackageContentsWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	installTree(t, dir, map[string]string{
		"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"kit","version":"1.0.0","contributes":{"mcpServers":{"files":{"command":"files"}}}}`,
		".mcp.json":            `{"mcpServers":{"files":{"command":"other"}}}`,
	})
	home, err := manifest.LoadHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := home.Record("kit")
	c, warns := LoadPackage(home, r, t.TempDir(), mcphost.Client{})
	defer c.Close()
	p := c.Package("kit")
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], `MCP server "files" from .mcp.json skipped`) || !reflect.DeepEqual(warns, p.Warnings) {
		t.Errorf("package warnings = %q, all = %q", p.Warnings, warns)
	}
}

// TestProjectHooksConfig: the hooks of a workspace's
// .reasonix/settings.json run only when config.toml says [hooks]
// project = true; otherwise the build says they were not run.
func TestProjectHooksConfig(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		dir, ws := t.TempDir(), t.TempDir()
		writeTree(t, ws, map[string]string{".reasonix/settings.json": `{"hooks":{"SessionStart":[{"command":"echo project"}]}}`})
		if on {
			writeTree(t, dir, map[string]string{"config.toml": "[hooks]\nproject = true\n"})
		}
		s, err := Open(ctxT(t), Options{Home: dir, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		snap := s.Current()
		n := len(snap.Hooks().Listing())
		warned := strings.Contains(strings.Join(snap.Warnings, "\n"), "settings.json")
		s.Close()
		if on && (n != 1 || warned) {
			t.Errorf("project = true: %d hooks, warnings %q", n, snap.Warnings)
		}
		if !on && (n != 0 || !warned) {
			t.Errorf("project unset: %d hooks, warnings %q", n, snap.Warnings)
		}
	}
}
