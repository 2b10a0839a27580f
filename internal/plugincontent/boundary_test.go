package plugincontent

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The workspace boundary (issue 26 defect 4): every file a command, skill
// or agent is read from resolves, symlinks followed, inside the directory
// its root belongs to (the workspace, the user's home, the plugin root).

// world is a temp tree: base/disk stands in for "/" (markdown and secrets
// outside everything), base/<ws> is the workspace, base/home the user's
// home.
type world struct{ base, disk, ws, home string }

func newWorld(t *testing.T, wsName string) world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := world{base: base, disk: filepath.Join(base, "disk"), ws: filepath.Join(base, wsName), home: filepath.Join(base, "home")}
	writeTree(t, base, map[string]string{
		"disk/etc/hostname":        "SECRET-HOSTNAME",
		"disk/root/.aws/creds.md":  "aws_secret_access_key = SECRET-AWS",
		"disk/usr/share/doc/a.md":  "---\ndescription: stray doc\n---\nSTRAY-A",
		"disk/usr/share/doc/b.md":  "STRAY-B",
		"disk/opt/spy.md":          "---\ndescription: spy\n---\nSPY",
		wsName + "/README.md":      "readme",
		"home/dotfiles/keep.txt":   "",
		"home/.config/placeholder": "",
	})
	return w
}

// link makes the symlink at (relative to base) pointing to target.
func (w world) link(t *testing.T, at, target string) {
	t.Helper()
	p := filepath.Join(w.base, filepath.FromSlash(at))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

func (w world) load(t *testing.T, pkgs ...Package) (*Set, []Warning) {
	t.Helper()
	roots, rw := Roots(pkgs, Places{Workspace: w.ws, UserHome: w.home})
	set, lw := Load(roots, Options{})
	return set, append(rw, lw...)
}

// warned fails unless a warning names path (and says why, when why is set).
func warned(t *testing.T, warns []Warning, path, why string) {
	t.Helper()
	for _, w := range warns {
		if w.Path == path && strings.Contains(w.Msg, path) && strings.Contains(w.Msg, why) {
			return
		}
	}
	t.Errorf("no warning naming %s (%q) in %v", path, why, warns)
}

// noSecret fails if any command or skill of set carries text.
func noSecret(t *testing.T, set *Set, texts ...string) {
	t.Helper()
	for _, c := range set.commands {
		for _, s := range texts {
			if strings.Contains(c.Body, s) || strings.Contains(c.Description, s) {
				t.Errorf("command %s carries %q from outside", c.Name, s)
			}
		}
	}
	for _, sk := range set.skills {
		for _, s := range texts {
			if strings.Contains(sk.Body, s) || strings.Contains(sk.Description, s) {
				t.Errorf("skill %s carries %q from outside", sk.Name, s)
			}
		}
	}
}

func TestCommandsFolderSymlinkedToTheDiskIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	w.link(t, "ws/.claude/commands", w.disk)          // ln -s / ws/.claude/commands
	w.link(t, "ws/.reasonix/skills", w.disk)          // and the skills folder
	w.link(t, "home/.claude/commands", w.disk)        // a home folder out of the home
	w.link(t, "home/.agents/skills", w.disk+"/../..") // relative spelling of the same
	set, warns := w.load(t)
	if got := cmdNames(set.Commands()); len(got) != 0 {
		t.Errorf("commands from outside the workspace: %v", got)
	}
	if got := skillNames(set.Skills()); len(got) != 0 {
		t.Errorf("skills from outside the workspace: %v", got)
	}
	noSecret(t, set, "STRAY", "SPY", "SECRET")
	if out, err := call(t, tool(t, set, Env{}, ToolSlashCommand), map[string]any{"name": "usr:share:doc:a"}); err == nil {
		t.Errorf("slash_command ran a file of the disk: %s", out)
	}
	warned(t, warns, filepath.Join(w.ws, ".claude", "commands"), "outside the workspace")
	warned(t, warns, filepath.Join(w.ws, ".reasonix", "skills"), "outside the workspace")
	warned(t, warns, filepath.Join(w.home, ".claude", "commands"), "outside the user's home")
	warned(t, warns, filepath.Join(w.home, ".agents", "skills"), "outside the user's home")
}

func TestSkillFileSymlinkedOutIsRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	writeTree(t, w.ws, map[string]string{".claude/skills/ok/SKILL.md": skill("fine", "OK")})
	w.link(t, "ws/.claude/skills/x/SKILL.md", filepath.Join(w.disk, "etc", "hostname"))
	w.link(t, "ws/.agents/skills/flat.md", filepath.Join(w.disk, "opt", "spy.md"))
	set, warns := w.load(t)
	equal(t, "skills", skillNames(set.Skills()), []string{"ok"})
	noSecret(t, set, "SECRET", "SPY")
	if out, err := call(t, tool(t, set, Env{}, ToolRunSkill), map[string]any{"name": "x"}); err == nil || strings.Contains(out, "SECRET") {
		t.Errorf("run_skill x = %q, %v", out, err)
	}
	warned(t, warns, filepath.Join(w.ws, ".claude", "skills", "x", "SKILL.md"), "outside the workspace")
	warned(t, warns, filepath.Join(w.ws, ".agents", "skills", "flat.md"), "outside the workspace")
}

func TestSkillReferenceSymlinkedOutStaysOut(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	writeTree(t, w.ws, map[string]string{
		".claude/skills/x/SKILL.md":           skill("x", "BODY"),
		".claude/skills/x/references/fine.md": "FINE-REFERENCE",
		".claude/skills/x/scripts/run.sh":     "echo",
	})
	w.link(t, "ws/.claude/skills/x/references/creds.md", filepath.Join(w.disk, "root", ".aws", "creds.md"))
	w.link(t, "ws/.claude/skills/x/scripts/evil.sh", filepath.Join(w.disk, "etc", "hostname"))
	set, warns := w.load(t)
	sk, ok := set.lookupSkill("x")
	if !ok {
		t.Fatal("skill x not loaded")
	}
	if strings.Contains(sk.Body, "SECRET-AWS") || strings.Contains(sk.Body, "evil.sh") {
		t.Errorf("the skill body carries what is outside:\n%s", sk.Body)
	}
	if !strings.Contains(sk.Body, "FINE-REFERENCE") || !strings.Contains(sk.Body, "run.sh") {
		t.Errorf("the skill body lost what is inside:\n%s", sk.Body)
	}
	warned(t, warns, filepath.Join(w.ws, ".claude", "skills", "x", "references", "creds.md"), "outside the workspace")
	warned(t, warns, filepath.Join(w.ws, ".claude", "skills", "x", "scripts", "evil.sh"), "outside the workspace")
}

func TestPluginFilesSymlinkedOutAreRefused(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	p := plugin(t, w.base, "plug", map[string]string{
		"reasonix-plugin.json":   `{"apiVersion":"reasonix.io/plugin/v1","name":"plug","contributes":{"commands":["commands"],"skills":["skills"],"agents":["agents"]}}`,
		"commands/own.md":        "OWN",
		"agents/helper.md":       "---\ndescription: helps\n---\nHELP",
		"skills/s/SKILL.md":      skill("s", "S"),
		"skills/s/references/.k": "",
	})
	w.link(t, "plug/agents/spy.md", filepath.Join(w.disk, "opt", "spy.md"))
	w.link(t, "plug/commands/doc", filepath.Join(w.disk, "usr", "share", "doc"))
	w.link(t, "plug/skills/s/references/creds.md", filepath.Join(w.disk, "root", ".aws", "creds.md"))
	set, warns := w.load(t, p)
	equal(t, "commands", cmdNames(set.Commands()), []string{"plug:own"})
	equal(t, "slash skills", slashNames(set.SlashSkills()), []string{"plug:agent:helper", "plug:s"})
	noSecret(t, set, "SPY", "STRAY", "SECRET")
	for _, f := range []string{"agents/spy.md", "commands/doc", "skills/s/references/creds.md"} {
		warned(t, warns, filepath.Join(p.Root, filepath.FromSlash(f)), "outside the plugin root")
	}
	for _, wn := range warns {
		if wn.Plugin != "plug" {
			t.Errorf("a warning about the plugin's files does not name it: %+v", wn)
		}
	}
}

func TestAllowedShapesStillLoad(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "my work space")
	writeTree(t, w.ws, map[string]string{
		"shared/cmds/review.md":          "---\ndescription: review\n---\nREVIEW",
		"shared/notes.md":                "NOTES",
		"shared/skills/plan/SKILL.md":    skill("plans", "PLAN"),
		"shared/refs/style.md":           "STYLE",
		".claude/skills/tidy/SKILL.md":   skill("tidies", "TIDY"),
		".claude/commands/own one.md":    "OWN",
		".claude/commands/sub dir/x.md":  "X",
		"home-dotfiles-stand-in/keep.md": "",
	})
	writeTree(t, w.home, map[string]string{"dotfiles/skills/dot/SKILL.md": skill("from dotfiles", "DOT")})
	w.link(t, "my work space/.claude/commands/shared", filepath.Join(w.ws, "shared", "cmds"))             // absolute, inside
	w.link(t, "my work space/.claude/commands/notes.md", filepath.Join("..", "..", "shared", "notes.md")) // relative, inside
	w.link(t, "my work space/.agents/skills", filepath.Join("..", "shared", "skills"))                    // a folder linked inside
	w.link(t, "my work space/.claude/skills/tidy/references/style.md", filepath.Join(w.ws, "shared", "refs", "style.md"))
	w.link(t, "home/.claude/skills", filepath.Join(w.home, "dotfiles", "skills")) // dotfile repos
	set, warns := w.load(t)
	equal(t, "commands", cmdNames(set.Commands()), []string{"notes", "own one", "shared:review", "sub dir:x"})
	equal(t, "skills", skillNames(set.Skills()), []string{"dot", "plan", "tidy"})
	tidy, _ := set.lookupSkill("tidy")
	if !strings.Contains(tidy.Body, "STYLE") {
		t.Errorf("a reference linked inside the workspace is served: %s", tidy.Body)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
}

func TestBadNamesAreRefusedWithAWarning(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold these characters")
	}
	w := newWorld(t, "ws")
	bad := []string{"new\nline", "semi;colon", "ctl\x01char", "tab\there", "back\\slash", "bidi\u202eevil"}
	files := map[string]string{".claude/commands/fine.md": "FINE", ".claude/skills/good/SKILL.md": skill("good", "GOOD")}
	for _, b := range bad {
		files[".claude/commands/"+b+".md"] = "BAD"
		files[".claude/commands/"+b+"/x.md"] = "BAD"
		files[".reasonix/skills/"+b+"/SKILL.md"] = skill("bad", "BAD")
		files[".reasonix/skills/"+b+".md"] = skill("bad flat", "BAD")
	}
	writeTree(t, w.ws, files)
	set, warns := w.load(t)
	equal(t, "commands", cmdNames(set.Commands()), []string{"fine"})
	equal(t, "skills", skillNames(set.Skills()), []string{"good"})
	for _, b := range bad {
		warned(t, warns, filepath.Join(w.ws, ".claude", "commands", b+".md"), "name")
		warned(t, warns, filepath.Join(w.ws, ".claude", "commands", b, "x.md"), "name")
		warned(t, warns, filepath.Join(w.ws, ".reasonix", "skills", b, "SKILL.md"), "name")
		warned(t, warns, filepath.Join(w.ws, ".reasonix", "skills", b+".md"), "name")
	}
}

func TestValidCommandName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"review": true, "git:commit": true, "own one": true, "审查": true, "a.b-c_d": true,
		"": false, "a\nb": false, "a;b": false, "a\x00b": false, "a\x7fb": false, "a/b": false, `a\b`: false,
		"a\u202eb": false, "\xff": false, ":a": false, "a:": false, "a::b": false,
	} {
		if got := ValidCommandName(name); got != want {
			t.Errorf("ValidCommandName(%q) = %v", name, got)
		}
	}
}

func TestWalksAreBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	deep := ".claude/commands"
	for i := 0; i < MaxWalkDepth+2; i++ {
		deep += "/d"
	}
	files := map[string]string{".claude/commands/top.md": "TOP", deep + "/deep.md": "DEEP"}
	for i := 0; i < 30; i++ {
		files[".agents/commands/many/"+string(rune('a'+i%26))+strings.Repeat("x", i/26)+".md"] = "M"
	}
	writeTree(t, w.ws, files)
	roots, _ := Roots(nil, Places{Workspace: w.ws})
	set, warns := Load(roots, Options{MaxWalkEntries: 20})
	names := cmdNames(set.Commands())
	if !slices.Contains(names, "top") || slices.ContainsFunc(names, func(n string) bool { return strings.HasSuffix(n, "deep") }) {
		t.Errorf("commands %v: want top and not the one deeper than %d", names, MaxWalkDepth)
	}
	if n := len(names); n > 40 {
		t.Errorf("%d commands past the entry budget", n)
	}
	warned(t, warns, filepath.Join(w.ws, ".claude", "commands"), "deeper than")
	warned(t, warns, filepath.Join(w.ws, ".agents", "commands"), "entries")
}

func TestRootOutsideItsBoundIsAWarning(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "ws")
	writeTree(t, w.base, map[string]string{"elsewhere/x.md": "X"})
	dir := filepath.Join(w.base, "elsewhere")
	set, warns := Load([]Root{{Path: dir, Kind: KindCommands, Bound: w.ws, boundName: "the workspace"}}, Options{})
	equal(t, "commands", cmdNames(set.Commands()), []string{})
	warned(t, warns, dir, "is outside the workspace")
}
