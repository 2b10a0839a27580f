package plugincontent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMultiRootPrecedence: every workspace folder serves its commands,
// skills and memory; of two of one name the primary folder's wins, then
// the earlier folder's.
func TestMultiRootPrecedence(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	cmd := func(body string) string { return "---\ndescription: " + body + "\n---\n" + body }
	skill := func(body string) string { return "---\ndescription: " + body + "\n---\n" + body }
	primary := writeTree(t, filepath.Join(base, "primary"), map[string]string{
		".claude/commands/shared.md":     cmd("primary shared"),
		".reasonix/skills/both/SKILL.md": skill("primary both"),
		"CLAUDE.md":                      "primary memory",
	})
	second := writeTree(t, filepath.Join(base, "second folder"), map[string]string{
		".claude/commands/shared.md":      cmd("second shared"),
		".claude/commands/second-only.md": cmd("second only"),
		".reasonix/skills/both/SKILL.md":  skill("second both"),
		".reasonix/skills/pair/SKILL.md":  skill("second pair"),
		"AGENTS.md":                       "second memory",
	})
	third := writeTree(t, filepath.Join(base, "third"), map[string]string{
		".claude/commands/second-only.md": cmd("third only"),
		".reasonix/skills/pair/SKILL.md":  skill("third pair"),
		"notes.md":                        "third notes",
	})
	places := Places{Workspace: primary, Folders: []string{second, third}}
	roots, _ := Roots(nil, places)
	set, warns := Load(roots, Options{})
	if len(warns) > 0 {
		t.Fatalf("warnings %v", warns)
	}
	for name, want := range map[string]string{"shared": "primary shared", "second-only": "second only"} {
		c, ok := set.LookupCommand(name)
		if !ok || c.Description != want {
			t.Errorf("command %s = %+v, %v; want %q", name, c.Description, ok, want)
		}
	}
	for name, want := range map[string]string{"both": "primary both", "pair": "second pair"} {
		sk, ok := set.ResolveSlashSkill(name)
		if !ok || sk.Description != want {
			t.Errorf("skill %s = %q, %v; want %q", name, sk.Description, ok, want)
		}
	}
	mem, _ := Memory(places)
	if i, j := strings.Index(mem, "primary memory"), strings.Index(mem, "second memory"); i < 0 || j < i {
		t.Errorf("memory holds the primary folder's then the second's: %q", mem)
	}

	// @path references: an absolute one into another folder is inlined
	// under its absolute path; one outside every folder is not.
	outside := filepath.Join(base, "outside.txt")
	if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	realThird, _ := filepath.EvalSymlinks(third)
	ref := filepath.ToSlash(filepath.Join(third, "notes.md"))
	got := InlineRefs("see @"+ref+" and @"+filepath.ToSlash(outside), primary, second, third)
	if want := `<file path="` + filepath.ToSlash(filepath.Join(realThird, "notes.md")) + `">` + "\nthird notes"; !strings.Contains(got, want) || strings.Contains(got, "SECRET") {
		t.Errorf("InlineRefs = %q; want %q and nothing of the outside file", got, want)
	}
}
