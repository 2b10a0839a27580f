package plugincontent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The workspace's CLAUDE.md (with its @imports) and AGENTS.md and the
// user's ~/.claude/CLAUDE.md make the memory block, as Claude Code loads
// them; the block is the same bytes every time.
func TestMemoryLoadsProjectAndUserInstructions(t *testing.T) {
	t.Parallel()
	ws, home := fixtureDir(t, "workspace"), fixtureDir(t, "home")
	mem, warns := Memory(Places{Workspace: ws, UserHome: home})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	want := []string{
		memoryIntro,
		"Contents of " + filepath.Join(home, ".claude", "CLAUDE.md") + " (user's private global instructions for all projects):\n\nAnswer in British English.",
		"Contents of " + filepath.Join(ws, "CLAUDE.md") + " (project instructions, checked into the codebase):\n\n# Project notes",
		"Contents of " + filepath.Join(ws, "docs", "style.md") + " (imported by CLAUDE.md):\n\nUse tabs.",
		"Contents of " + filepath.Join(ws, "AGENTS.md") + " (project instructions for agents, checked into the codebase):\n\nNever commit generated files.",
	}
	at := -1
	for _, w := range want {
		i := strings.Index(mem, w)
		if i <= at {
			t.Fatalf("memory lacks, or misorders, %q:\n%s", w, mem)
		}
		at = i
	}
	if again, _ := Memory(Places{Workspace: ws, UserHome: home}); again != mem {
		t.Error("the memory block is not stable")
	}
	if mem, _ := Memory(Places{}); mem != "" {
		t.Errorf("no places, memory %q", mem)
	}
}

func TestMemoryIsBounded(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	secret := writeTree(t, filepath.Join(base, "secret"), map[string]string{"creds.md": "TOKEN=hunter2"})
	ws := writeTree(t, filepath.Join(base, "ws"), map[string]string{
		"CLAUDE.md": "big: @big.md\nloop: @CLAUDE.md\nchain: @a.md\nout: @../secret/creds.md\nlink: @link.md\n`@code.md` and mail a@b.md\n```\n@fenced.md\n```",
		"big.md":    strings.Repeat("é", MaxMemoryFileBytes),
		"a.md":      "@b.md", "b.md": "@c.md", "c.md": "@d.md", "d.md": "@e.md", "e.md": "@f.md", "f.md": "@g.md", "g.md": "G",
		"code.md": "CODE", "fenced.md": "FENCED", "b@b.md": "MAIL",
		"AGENTS.md.orig": "",
	})
	if err := os.Symlink(filepath.Join(secret, "creds.md"), filepath.Join(ws, "link.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	mem, warns := Memory(Places{Workspace: ws})
	for _, leak := range []string{"hunter2", "CODE", "FENCED", "MAIL", "Contents of " + filepath.Join(ws, "f.md")} {
		if strings.Contains(mem, leak) {
			t.Errorf("memory holds %q", leak)
		}
	}
	if !strings.Contains(mem, "Contents of "+filepath.Join(ws, "e.md")) || !strings.Contains(mem, "[truncated: the file is larger than") {
		t.Errorf("memory:\n%s", strings.ReplaceAll(mem, strings.Repeat("é", 100), ""))
	}
	if strings.Count(mem, "Contents of "+filepath.Join(ws, "CLAUDE.md")) != 1 {
		t.Error("an import loop repeats a file")
	}
	outside := 0
	for _, w := range warns {
		if strings.Contains(w.Msg, "outside") {
			outside++
		}
	}
	if outside != 2 {
		t.Errorf("warnings: %v", warns)
	}
}
