package plugincontent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

func TestRender(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		args       []string
		want       string
	}{
		{"reference example", "Review $1 focusing on $ARGUMENTS. Cost: $$5. Missing: [$3]", []string{"main.go", "bugs"},
			"Review main.go focusing on main.go bugs. Cost: $5. Missing: []"},
		{"no args", "x=$1 y=$ARGUMENTS", nil, "x= y="},
		{"dollar zero is empty", "[$0]", []string{"a"}, "[]"},
		{"escaped dollar before a token", "$$ARGUMENTS $$1", []string{"a"}, "$ARGUMENTS $1"},
		{"substituted text is not rescanned", "$1 $2", []string{"$2", "$ARGUMENTS"}, "$2 $ARGUMENTS"},
		{"huge index", "[$99999999999999999999999]", []string{"a"}, "[]"},
		{"multi-digit index", "$10", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "ten"}, "ten"},
		{"lone dollar kept", "cost $ and $x", []string{"a"}, "cost $ and $x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			equal(t, "render", Render(tc.body, tc.args), tc.want)
		})
	}
}

func TestLoadRootsUsesCanonicalPluginNamesAndHiddenCompatibleShortName(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeTree(t, base, map[string]string{
		"plugin/commands/plan.md":       "---\ndescription: plugin plan\nargument-hint: <feature>\n---\nPLUGIN $ARGUMENTS\n",
		"plugin/commands/status.md":     "STATUS\n",
		"ws/.reasonix/commands/plan.md": "PROJECT\n",
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "plugin/commands"), Plugin: "planning-with-files", Kind: KindCommands, Scope: ScopeCustom},
		Root{Path: filepath.Join(base, "ws/.reasonix/commands"), Kind: KindCommands, Scope: ScopeProject},
	)
	equal(t, "visible", cmdNames(set.Commands()), []string{"plan", "planning-with-files:plan", "planning-with-files:status"})

	plan, _ := set.LookupCommand("plan")
	equal(t, "/plan", plan.Render(nil), "PROJECT")
	q, ok := set.LookupCommand("/planning-with-files:plan")
	if !ok || q.Plugin != "planning-with-files" || q.ShortName != "plan" || q.Hidden || q.Description != "plugin plan" || q.ArgHint != "<feature>" {
		t.Fatalf("qualified plan: %+v", q)
	}
	equal(t, "render", q.Render([]string{"feature"}), "PLUGIN feature")
	st, ok := set.LookupCommand("status")
	if !ok || !st.Hidden || st.Plugin != "planning-with-files" || st.Render(nil) != "STATUS" {
		t.Fatalf("status alias: %+v", st)
	}
	inv, ok := set.ResolveSlash("/status", Env{})
	equal(t, "typed hidden alias", []any{ok, inv.Kind, inv.Text}, []any{true, InvokeCommand, "STATUS"})
}

func TestLoadRootsDoesNotReplaceAnExplicitQualifiedCommand(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"plugin/plan.md":                 "PLUGIN",
		"ws/planning-with-files/plan.md": "PROJECT FILE",
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "plugin"), Plugin: "planning-with-files", Kind: KindCommands},
		Root{Path: filepath.Join(base, "ws"), Kind: KindCommands},
	)
	q, _ := set.LookupCommand("planning-with-files:plan")
	equal(t, "qualified", []string{q.Plugin, q.Render(nil)}, []string{"", "PROJECT FILE"})
	alias, ok := set.LookupCommand("plan")
	equal(t, "short alias", []any{ok, alias.Hidden, alias.Render(nil)}, []any{true, true, "PLUGIN"})
	equal(t, "visible", cmdNames(set.Commands()), []string{"planning-with-files:plan"})
}

func TestLoadRootsOmitsAmbiguousShortPluginName(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{"a/plan.md": "A", "b/plan.md": "B", "b/only.md": "ONLY"})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "a"), Plugin: "alpha", Kind: KindCommands},
		Root{Path: filepath.Join(base, "b"), Plugin: "beta", Kind: KindCommands},
	)
	if _, ok := set.LookupCommand("plan"); ok {
		t.Fatal("/plan resolves although two plugins have plan")
	}
	equal(t, "visible", cmdNames(set.Commands()), []string{"alpha:plan", "beta:only", "beta:plan"})
	if c, ok := set.LookupCommand("only"); !ok || !c.Hidden {
		t.Fatalf("unambiguous alias: %+v %v", c, ok)
	}
}

func TestLoadNestedSubdirs(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"git/commit.md":    "c",
		"a/b/c/commit.md":  "deep",
		"top.md":           "t",
		"upper.MD":         "u",
		"notes.txt":        "not a command",
		"dir.md/inside.md": "in a dir named .md",
	})
	set := mustLoad(t, Root{Path: base, Kind: KindCommands})
	equal(t, "names", cmdNames(set.Commands()), []string{"a:b:c:commit", "dir.md:inside", "git:commit", "top", "upper.MD"})
}

func TestLoadBOM(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"bom.md":   "\uFEFF---\r\ndescription: with bom\r\n---\r\nBody line 1\r\nline 2\r\n",
		"utf16.md": string([]byte{0xFF, 0xFE, '-', 0, '-', 0, '-', 0, '\n', 0, 'd', 0, ':', 0, ' ', 0, 'x', 0, '\n', 0, '-', 0, '-', 0, '-', 0, '\n', 0, 'h', 0, 'i', 0}),
	})
	set := mustLoad(t, Root{Path: base, Kind: KindCommands})
	c, _ := set.LookupCommand("bom")
	equal(t, "bom", []string{c.Description, c.Body}, []string{"with bom", "Body line 1\nline 2"})
	u, _ := set.LookupCommand("utf16")
	equal(t, "utf16", u.Body, "hi")
}

func TestLoadMalformedFile(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"badyaml.md":  "---\ndescription: [unclosed\n---\nbody after bad yaml",
		"unclosed.md": "---\ndescription: x\nno closing fence",
		"notmap.md":   "---\n- a\n- b\n---\nlist front matter",
		"dupkey.md":   "---\ndescription: a\ndescription: b\n---\ndup",
		"good.md":     "---\ndescription: fine\n---\nok",
		"big.md":      strings.Repeat("x", MaxFileBytes+1),
	})
	if err := os.Symlink(filepath.Join(base, "missing.md"), filepath.Join(base, "dangling.md")); err != nil {
		t.Fatal(err)
	}
	set, warns := Load([]Root{{Path: base, Kind: KindCommands}}, Options{})
	equal(t, "names", cmdNames(set.Commands()), []string{"badyaml", "dupkey", "good", "notmap", "unclosed"})
	for name, want := range map[string][2]string{
		"badyaml":  {"", "body after bad yaml"},
		"unclosed": {"", "---\ndescription: x\nno closing fence"},
		"notmap":   {"", "list front matter"},
		"dupkey":   {"", "dup"},
		"good":     {"fine", "ok"},
	} {
		c, _ := set.LookupCommand(name)
		equal(t, name, [2]string{c.Description, c.Body}, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].Msg, "command load: ") || !strings.Contains(warns[0].Msg, "big.md is larger than") {
		t.Fatalf("warnings: %v", warns)
	}
}

func TestLoadSortedByName(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{"zeta.md": "z", "Alpha.md": "A", "mid/x.md": "x", "beta.md": "b"})
	p := writeTree(t, t.TempDir(), map[string]string{"aa.md": "p"})
	set := mustLoad(t, Root{Path: p, Plugin: "zz", Kind: KindCommands}, Root{Path: base, Kind: KindCommands})
	equal(t, "all", cmdNames(set.commands), []string{"Alpha", "aa", "beta", "mid:x", "zeta", "zz:aa"})
}

func TestLoadFollowsSymlinks(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"shared/review.md": "---\ndescription: shared\n---\nREVIEW",
		"cmds/own.md":      "OWN",
		"lone.md":          "LONE",
	})
	cmds := filepath.Join(base, "cmds")
	for link, target := range map[string]string{
		"cmds/linked":  filepath.Join(base, "shared"),
		"cmds/file.md": filepath.Join(base, "lone.md"),
		"cmds/loop":    cmds, // a cycle back to the root
		"cmds/broken":  filepath.Join(base, "nowhere"),
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	linkedRoot := filepath.Join(base, "rootlink")
	if err := os.Symlink(cmds, linkedRoot); err != nil {
		t.Fatal(err)
	}
	for _, root := range []string{cmds, linkedRoot} {
		// Links are followed inside the root's bound (here base, as the
		// workspace or plugin root is for Roots' roots).
		set := mustLoad(t, Root{Path: root, Kind: KindCommands, Bound: base})
		equal(t, root, cmdNames(set.Commands()), []string{"file", "linked:review", "own"})
		c, _ := set.LookupCommand("linked:review")
		equal(t, "through the link", []string{c.Description, c.Body}, []string{"shared", "REVIEW"})
	}
}

func TestLoadDecodesGB18030CommandFile(t *testing.T) {
	t.Parallel()
	text := "---\ndescription: 审查代码\n---\n请审查 $1 的改动"
	enc, err := simplifiedchinese.GB18030.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	base := writeTree(t, t.TempDir(), map[string]string{"review.md": enc, "broken.md": "ok \xff\xfe\xfd end"})
	set := mustLoad(t, Root{Path: base, Kind: KindCommands})
	c, _ := set.LookupCommand("review")
	equal(t, "gb18030", []string{c.Description, c.Render([]string{"main.go"})}, []string{"审查代码", "请审查 main.go 的改动"})
	b, _ := set.LookupCommand("broken")
	equal(t, "undecodable bytes", b.Body, "ok \uFFFD end")
}

func TestPromptsServedAsCommands(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"prompts/draft.md": "---\ndescription: a prompt\n---\nDraft $1",
		"prompts/both.md":  "FROM PROMPTS",
		"commands/both.md": "FROM COMMANDS",
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "prompts"), Plugin: "p", Kind: KindPrompts},
		Root{Path: filepath.Join(base, "commands"), Plugin: "p", Kind: KindCommands},
	)
	d, ok := set.LookupCommand("p:draft")
	equal(t, "prompt", []any{ok, d.Kind, d.Description, d.Render([]string{"x"})}, []any{true, KindPrompts, "a prompt", "Draft x"})
	b, _ := set.LookupCommand("p:both")
	equal(t, "commands root after prompts root wins", b.Body, "FROM COMMANDS")
}
