package pluginrt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// The user's and project's convention folders are served inside the
// workspace boundary: a workspace folder linked out of the workspace is a
// warning and serves nothing; a home folder linked elsewhere in the home
// (a dotfiles repo) is served.
func TestContentsKeepConventionFoldersInsideTheirPlace(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, userHome, disk := filepath.Join(base, "ws"), filepath.Join(base, "home"), filepath.Join(base, "disk")
	writeTree(t, base, map[string]string{
		"disk/usr/share/doc/a.md":             "STRAY",
		"ws/README.md":                        "",
		"home/dotfiles/skills/dot/SKILL.md":   "---\ndescription: from dotfiles\n---\nDOT",
		"home/dotfiles/commands/from-dots.md": "DOTS",
		"bridge-home/.keep":                   "",
	})
	for link, target := range map[string]string{
		"ws/.claude/commands":   disk,
		"home/.claude/skills":   filepath.Join(userHome, "dotfiles", "skills"),
		"home/.claude/commands": filepath.Join("..", "dotfiles", "commands"),
	} {
		p := filepath.Join(base, filepath.FromSlash(link))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	home, err := manifest.LoadHome(filepath.Join(base, "bridge-home"))
	if err != nil {
		t.Fatal(err)
	}
	c, warns := buildContents(home, nil, contentsOptions{Workspace: ws, UserHome: userHome, Settings: true, Idle: true})
	defer c.Close()
	var cmds, skills []string
	for _, cmd := range c.Markdown.Commands() {
		cmds = append(cmds, cmd.Name)
	}
	for _, sk := range c.Markdown.Skills() {
		skills = append(skills, sk.Name)
	}
	if strings.Join(cmds, ",") != "from-dots" || strings.Join(skills, ",") != "dot" {
		t.Errorf("commands %v, skills %v; want from-dots and dot", cmds, skills)
	}
	found := false
	for _, w := range warns {
		if strings.Contains(w, filepath.Join(".claude", "commands")) && strings.Contains(w, "leads outside the workspace through a symlink") {
			found = true
		}
	}
	if !found {
		t.Errorf("no warning names the folder linked out: %q", warns)
	}
}
