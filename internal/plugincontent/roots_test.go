package plugincontent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// plugin writes a plugin directory under base/name with files and loads
// its manifest as the host does.
func plugin(t *testing.T, base, name string, files map[string]string) Package {
	t.Helper()
	dir := writeTree(t, filepath.Join(base, name), files)
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Package{Name: name, Root: dir, Manifest: m}
}

func rootsOf(roots []Root, kinds ...Kind) []string {
	var out []string
	for _, r := range roots {
		for _, k := range kinds {
			if r.Kind == k {
				out = append(out, string(r.Kind)+" "+r.Plugin+" "+string(r.Scope)+" "+r.Path)
			}
		}
	}
	return out
}

func TestCommandDirsIncludePluginPackageCommands(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	native := plugin(t, base, "zeta", map[string]string{
		"reasonix-plugin.json": `{"apiVersion":"reasonix.io/plugin/v1","name":"zeta-manifest","contributes":{"commands":["cmds/*"],"prompts":"prompts","skills":["skills"],"agents":["agents"]}}`,
		"cmds/one/run.md":      "ONE",
		"cmds/two/run.md":      "TWO",
		"prompts/draft.md":     "DRAFT",
		"skills/s/SKILL.md":    skill("zeta skill", "Z"),
		"agents/a.md":          skill("zeta agent", "A"),
		"commands/ignored.md":  "native packages declare their commands",
	})
	claude := plugin(t, base, "alpha", map[string]string{
		".claude-plugin/plugin.json":   `{"name":"alpha-claude"}`,
		"commands/deep/er/go.md":       "GO",
		".claude/commands/c.md":        "C",
		"agents/reviewer.md":           "---\ndescription: reviews\ntools: Read\n---\nR",
		"skills/plan/SKILL.md":         skill("plans", "P"),
		".claude/skills/tidy/SKILL.md": skill("tidies", "T"),
		"skills/README.md":             "a flat file in a plugin root is a skill",
	})
	ws := writeTree(t, filepath.Join(base, "ws"), map[string]string{".reasonix/commands/run.md": "PROJECT"})
	home := filepath.Join(base, "home")
	rx := filepath.Join(base, "rxhome")
	roots, warns := Roots([]Package{native, claude}, Places{Workspace: ws, UserHome: home, ReasonixHome: rx})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	a, z := claude.Root, native.Root
	equal(t, "command roots, lowest priority first", rootsOf(roots, KindCommands, KindPrompts), []string{
		"commands alpha custom " + filepath.Join(a, ".claude/commands"),
		"commands alpha custom " + filepath.Join(a, "commands"),
		"prompts zeta custom " + filepath.Join(z, "prompts"),
		"commands zeta custom " + filepath.Join(z, "cmds/one"),
		"commands zeta custom " + filepath.Join(z, "cmds/two"),
		"commands  global " + filepath.Join(home, ".claude/commands"),
		"commands  global " + filepath.Join(home, ".agent/commands"),
		"commands  global " + filepath.Join(home, ".agents/commands"),
		"commands  global " + filepath.Join(home, ".reasonix/commands"),
		"commands  global " + filepath.Join(rx, "commands"),
		"commands  project " + filepath.Join(ws, ".claude/commands"),
		"commands  project " + filepath.Join(ws, ".agent/commands"),
		"commands  project " + filepath.Join(ws, ".agents/commands"),
		"commands  project " + filepath.Join(ws, ".reasonix/commands"),
	})
	equal(t, "skill roots, highest priority first", rootsOf(roots, KindSkills, KindAgents), []string{
		"skills  project " + filepath.Join(ws, ".reasonix/skills"),
		"skills  project " + filepath.Join(ws, ".agents/skills"),
		"skills  project " + filepath.Join(ws, ".agent/skills"),
		"skills  project " + filepath.Join(ws, ".claude/skills"),
		"agents  project " + filepath.Join(ws, ".claude/agents"),
		"agents  global " + filepath.Join(home, ".claude/agents"),
		"skills alpha custom " + filepath.Join(a, ".claude/skills"),
		"skills alpha custom " + filepath.Join(a, "skills"),
		"agents alpha custom " + filepath.Join(a, "agents"),
		"skills zeta custom " + filepath.Join(z, "skills"),
		"agents zeta custom " + filepath.Join(z, "agents"),
		"skills  global " + filepath.Join(rx, "skills"),
		"skills  global " + filepath.Join(home, ".reasonix/skills"),
		"skills  global " + filepath.Join(home, ".agents/skills"),
		"skills  global " + filepath.Join(home, ".agent/skills"),
		"skills  global " + filepath.Join(home, ".claude/skills"),
	})

	set, _ := Load(roots, Options{})
	equal(t, "commands", cmdNames(set.Commands()), []string{"alpha:c", "alpha:deep:er:go", "run", "zeta:draft", "zeta:run"})
	if c, _ := set.LookupCommand("zeta:run"); c.Body != "TWO" {
		t.Fatalf("a later root of the same plugin wins: %+v", c)
	}
	equal(t, "slash skills", slashNames(set.SlashSkills()), []string{"alpha:README", "alpha:agent:reviewer", "alpha:plan", "alpha:tidy", "zeta:agent:a", "zeta:s"})
	rev, _ := set.ResolveSlashSkill("alpha:agent:reviewer")
	equal(t, "claude agent", []any{rev.Subagent, rev.AllowedTools}, []any{true, []string{"read_file"}})
}

func TestClaudeConventionDirsAdoptedOnlyWhenTheyHoldContent(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	declared := plugin(t, base, "declared", map[string]string{
		".claude-plugin/plugin.json": `{"name":"d","skills":["custom-skills"],"commands":["commands"]}`,
		"custom-skills/x/SKILL.md":   skill("x", "X"),
		"skills/y/SKILL.md":          skill("y", "Y"),
		"commands/a.md":              "A",
		"agents/notes.txt":           "no agent here",
	})
	empty := plugin(t, base, "empty", map[string]string{
		".claude-plugin/plugin.json": `{"name":"e"}`,
		"commands/readme.txt":        "no command",
		"skills/flat.md":             "flat files do not make a skills dir",
		"agents/sub/deep.md":         "not flat",
	})
	outside := writeTree(t, filepath.Join(base, "outside"), map[string]string{"evil.md": "EVIL"})
	escaping := plugin(t, base, "escaping", map[string]string{".claude-plugin/plugin.json": `{"name":"x"}`})
	if err := os.Symlink(outside, filepath.Join(escaping.Root, "commands")); err != nil {
		t.Fatal(err)
	}
	codex := plugin(t, base, "codex", map[string]string{".codex-plugin/plugin.json": `{"name":"c"}`, "commands/a.md": "A"})

	roots, warns := Roots([]Package{declared, empty, escaping, codex}, Places{})
	equal(t, "roots", rootsOf(roots, KindCommands, KindSkills, KindAgents), []string{
		"commands declared custom " + filepath.Join(declared.Root, "commands"),
		"skills declared custom " + filepath.Join(declared.Root, "custom-skills"),
	})
	if len(warns) != 1 || warns[0].Plugin != "escaping" || !strings.Contains(warns[0].Msg, "commands escapes the plugin root through a symlink") {
		t.Fatalf("warnings: %v", warns)
	}
}

func TestRootsPlacesAreOptional(t *testing.T) {
	t.Parallel()
	roots, _ := Roots(nil, Places{})
	equal(t, "no places", len(roots), 0)
	roots, _ = Roots(nil, Places{Workspace: "/ws", ReasonixHome: "/ws/.reasonix"})
	for _, r := range roots {
		if r.Path == filepath.Clean("/ws/.reasonix/commands") && r.Scope != ScopeGlobal {
			t.Fatalf("a directory listed twice keeps its first (lower priority) place: %+v", r)
		}
	}
	seen := map[string]int{}
	for _, r := range roots {
		seen[string(r.Kind)+r.Path]++
	}
	for k, n := range seen {
		if n > 1 {
			t.Fatalf("%s listed %d times", k, n)
		}
	}
}
