package plugincontent

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// fixture loads the package in testdata/<name> as the host does, under
// its directory name.
func fixture(t *testing.T, name string) Package {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Package{Name: name, Root: dir, Manifest: m}
}

// loadFixtures loads the named testdata packages, with places.
func loadFixtures(t *testing.T, places Places, names ...string) (*Set, []Warning) {
	t.Helper()
	var pkgs []Package
	for _, n := range names {
		pkgs = append(pkgs, fixture(t, n))
	}
	roots, rw := Roots(pkgs, places)
	set, lw := Load(roots, Options{})
	return set, append(rw, lw...)
}

// parentTools stands for a session's tools: three read-only, two not.
var parentTools = []string{"read_file", "list_files", "search_text", "apply_edit", "run_command"}

// readOnlyTools are the read-only ones of parentTools.
var readOnlyTools = map[string]bool{"read_file": true, "list_files": true, "search_text": true}

// childTools is what a subagent run of sk would get of parentTools.
func childTools(sk Skill) []string {
	var out []string
	for _, name := range SubagentTools(parentTools, sk.AllowedTools) {
		if !sk.ReadOnly || readOnlyTools[name] {
			out = append(out, name)
		}
	}
	return out
}

// Claude Code reads front matter leniently: a published agent's
// description full of "Context: … user: …" (": " inside a plain scalar,
// which strict YAML rejects) keeps its description and, above all, its
// tools allow-list. An allow-list that still cannot be read leaves the
// agent read-only tools, never every tool.
func TestClaudeAgentFrontMatterIsReadLeniently(t *testing.T) {
	t.Parallel()
	set, _ := loadFixtures(t, Places{}, "review-kit")
	for _, tc := range []struct {
		agent      string
		descPrefix string
		tools      []string
	}{
		{"code-reviewer", "Use this agent when a major project step has been completed", []string{"read_file", "list_files", "search_text"}},
		{"release-notes", "Use this agent to draft release notes.", []string{"read_file", "search_text"}},
		{"broken-tools", "An agent whose tools list is cut short: Context: a typo in the list", []string{"read_file", "search_text"}},
		{"unclosed", "", []string{"read_file", "list_files", "search_text"}},
		{"mapped-tools", "An agent whose tools are a mapping", []string{"read_file", "list_files", "search_text"}},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			t.Parallel()
			sk, ok := set.ResolveSlashSkill("review-kit:agent:" + tc.agent)
			if !ok {
				t.Fatalf("agent %s not loaded", tc.agent)
			}
			if !strings.HasPrefix(sk.Description, tc.descPrefix) {
				t.Errorf("description %q, want it to start with %q", sk.Description, tc.descPrefix)
			}
			got := childTools(sk)
			equal(t, "tools", got, tc.tools)
			if slices.Contains(got, "run_command") || slices.Contains(got, "apply_edit") {
				t.Errorf("a read-only agent gets %v", got)
			}
		})
	}
	sk, _ := set.ResolveSlashSkill("review-kit:agent:code-reviewer")
	for _, want := range []string{"<example>Context: The user is creating", `user: "I've finished`, "</commentary></example>"} {
		if !strings.Contains(sk.Description, want) {
			t.Errorf("description lost %q: %q", want, sk.Description)
		}
	}
	equal(t, "model and color", []string{sk.Model, sk.Color}, []string{"", "red"})
}

// A native part keeps Reasonix's reading (front matter that is not YAML
// is dropped), but an allow-list lost that way narrows the subagent to
// read-only tools instead of leaving it every tool; a .claude folder of
// the workspace is Claude-format and read leniently.
func TestBrokenFrontMatterNeverWidensTools(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	broken := "---\ndescription: Reviews. Context: a colon\ntools: Read\nrunAs: subagent\n---\nB"
	ws := writeTree(t, filepath.Join(base, "ws"), map[string]string{
		".claude/skills/claude-sub/SKILL.md":   broken,
		".reasonix/skills/native-sub/SKILL.md": broken,
		".reasonix/skills/all-tools/SKILL.md":  "---\ndescription: d\nrunAs: subagent\n---\nB",
	})
	roots, _ := Roots(nil, Places{Workspace: ws})
	set, _ := Load(roots, Options{})
	for _, tc := range []struct {
		name, desc string
		subagent   bool
		tools      []string
	}{
		{"claude-sub", "Reviews. Context: a colon", true, []string{"read_file"}},
		{"native-sub", "", false, []string{"read_file", "list_files", "search_text"}},
		{"all-tools", "d", true, parentTools},
	} {
		sk, ok := set.ResolveSlashSkill(tc.name)
		if !ok {
			t.Fatalf("%s not loaded", tc.name)
		}
		equal(t, tc.name, []any{sk.Description, sk.Subagent, childTools(sk)}, []any{tc.desc, tc.subagent, tc.tools})
	}
}

// disable-model-invocation: true hides a skill or command from the model
// (index, slash_command, run_skill, read_skill); the user still types it.
func TestDisableModelInvocationHidesFromTheModel(t *testing.T) {
	t.Parallel()
	set, _ := loadFixtures(t, Places{}, "review-kit")
	env := Env{Runner: &recordingRunner{}}
	if idx := set.SkillIndex(); strings.Contains(idx, "secret-sauce") || !strings.Contains(idx, "- pdf — ") {
		t.Errorf("index:\n%s", idx)
	}
	slash := tool(t, set, env, ToolSlashCommand)
	for _, hidden := range []string{"review-kit:secret-sauce", "review-kit:deploy"} {
		if strings.Contains(slash.Schema.Description, hidden) {
			t.Errorf("slash_command lists %s: %s", hidden, slash.Schema.Description)
		}
		if _, err := call(t, slash, map[string]string{"command": hidden}); err == nil {
			t.Errorf("slash_command runs %s", hidden)
		}
	}
	if list, _ := call(t, slash, map[string]string{"command": "list"}); strings.Contains(list, "deploy") || strings.Contains(list, "secret-sauce") || !strings.Contains(list, "/review-kit:note") {
		t.Errorf("list:\n%s", list)
	}
	for _, name := range []string{ToolRunSkill, ToolReadSkill} {
		_, err := call(t, tool(t, set, env, name), map[string]string{"name": "secret-sauce"})
		if err == nil || !strings.Contains(err.Error(), `unknown skill "secret-sauce"`) || strings.Contains(err.Error(), "available: secret-sauce") {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, line := range []string{"/review-kit:secret-sauce now", "/review-kit:deploy staging"} {
		if inv, ok := set.ResolveSlash(line, env); !ok || inv.Text == "" {
			t.Errorf("the user cannot type %s: %+v", line, inv)
		}
	}
}

// Agents are listed to the model by their full names, and a full name
// resolves exactly: two packages' code-reviewer are two agents.
func TestAgentsAreListedAndResolvedByFullName(t *testing.T) {
	t.Parallel()
	set, _ := loadFixtures(t, Places{}, "review-kit", "other-kit")
	idx := set.SkillIndex()
	for _, want := range []string{agentsHeading, "- other-kit:agent:code-reviewer — Reviews code for security problems", "- review-kit:agent:code-reviewer — Use this agent when"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index lacks %q:\n%s", want, idx)
		}
	}
	if set.SkillIndex() != idx {
		t.Error("the index is not stable")
	}
	runner := &recordingRunner{}
	run := tool(t, set, Env{Runner: runner}, ToolRunSkill)
	for _, tc := range []struct{ name, instructions, tools string }{
		{"review-kit:agent:code-reviewer", "You are a Senior Code Reviewer", "read_file list_files search_text"},
		{"other-kit:agent:code-reviewer", "You are the other kit's reviewer", "read_file apply_edit run_command"},
	} {
		if _, err := call(t, run, map[string]string{"name": tc.name, "arguments": "review main.go"}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		req := runner.got[len(runner.got)-1]
		if req.SlashName != tc.name || !strings.HasPrefix(req.Instructions, tc.instructions) {
			t.Errorf("%s ran %s: %q", tc.name, req.SlashName, req.Instructions)
		}
		equal(t, tc.name+" tools", strings.Join(SubagentTools(parentTools, req.AllowedTools), " "), tc.tools)
	}
	_, err := call(t, run, map[string]string{"name": "code-reviewer", "arguments": "x"})
	if err == nil || !strings.Contains(err.Error(), "use one of: other-kit:agent:code-reviewer, review-kit:agent:code-reviewer") {
		t.Errorf("bare ambiguous name: %v", err)
	}
	if _, err := call(t, run, map[string]string{"name": "release-notes", "arguments": "v2"}); err != nil {
		t.Errorf("an unambiguous bare agent name: %v", err)
	}
	_, err = call(t, run, map[string]string{"name": "nope"})
	if err == nil || !strings.Contains(err.Error(), "review-kit:agent:release-notes") {
		t.Errorf("unknown: %v", err)
	}
}

// fixtureDir is testdata/<name>, absolute.
func fixtureDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// The project's and the user's .claude/agents are served, as Claude Code
// serves them: listed, invocable as /agent:<name>, and a project agent
// keeps its bare name over a plugin's.
func TestProjectAndUserClaudeAgents(t *testing.T) {
	t.Parallel()
	places := Places{Workspace: fixtureDir(t, "workspace"), UserHome: fixtureDir(t, "home")}
	set, warns := loadFixtures(t, places, "review-kit", "other-kit")
	for _, w := range warns {
		if strings.Contains(w.Path, "workspace") || strings.Contains(w.Path, "home") {
			t.Errorf("warning: %v", w)
		}
	}
	idx := set.SkillIndex()
	for _, want := range []string{"- agent:planner — Use this agent to plan", "- agent:explainer — Explains code", "- agent:code-reviewer — The project's own reviewer"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index lacks %q:\n%s", want, idx)
		}
	}
	for _, tc := range []struct{ line, instructions string }{
		{"/agent:planner plan dark mode", "You plan changes"},
		{"/agent:explainer explain main.go", "You explain code"},
	} {
		inv, ok := set.ResolveSlash(tc.line, Env{})
		if !ok || inv.Kind != InvokeSubagent || inv.Subagent == nil || !strings.HasPrefix(inv.Subagent.Instructions, tc.instructions) {
			t.Errorf("%s: %+v", tc.line, inv)
		}
	}
	planner, _ := set.ResolveSlashSkill("agent:planner")
	equal(t, "planner", []any{planner.Scope, childTools(planner)}, []any{ScopeProject, []string{"read_file", "list_files", "search_text"}})
	runner := &recordingRunner{}
	if _, err := call(t, tool(t, set, Env{Runner: runner}, ToolRunSkill), map[string]string{"name": "code-reviewer", "arguments": "x"}); err != nil {
		t.Fatal(err)
	}
	equal(t, "bare code-reviewer", runner.got[0].SlashName, "agent:code-reviewer")
}

// read_skill reads the files beside a skill's SKILL.md (forms.md,
// reference/*.md), which sit in the installed package, outside the
// workspace; never a file outside the skill's own folder.
func TestReadSkillReadsCompanionFiles(t *testing.T) {
	t.Parallel()
	set, _ := loadFixtures(t, Places{}, "review-kit")
	read := tool(t, set, Env{}, ToolReadSkill)
	for _, tc := range []struct{ file, want, err string }{
		{"forms.md", "Dates are written YYYY-MM-DD.", ""},
		{"reference/fields.md", "text, checkbox, radio.", ""},
		{"./reference/../forms.md", "Dates are written", ""},
		{"../secret-sauce/SKILL.md", "", "outside the skill's folder"},
		{"../../.claude-plugin/plugin.json", "", "outside the skill's folder"},
		{fixtureDir(t, "review-kit/agents/code-reviewer.md"), "", "outside the skill's folder"},
		{"missing.md", "", "missing.md"},
		{"reference", "", "not a regular file"},
	} {
		got, err := call(t, read, map[string]string{"name": "pdf", "file": tc.file})
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %q, %v; want error %q", tc.file, got, err, tc.err)
		case tc.err == "" && (err != nil || !strings.Contains(got, tc.want)):
			t.Errorf("%s: %q, %v", tc.file, got, err)
		}
	}
	body, err := call(t, read, map[string]string{"name": "pdf"})
	if err != nil || !strings.Contains(body, "Base directory for this skill: "+fixtureDir(t, "review-kit/skills/pdf")) {
		t.Errorf("render: %q, %v", body, err)
	}
	if _, err := call(t, tool(t, set, Env{}, ToolReadSkill), map[string]string{"name": "review-kit:agent:code-reviewer", "file": "x.md"}); err == nil || !strings.Contains(err.Error(), "single file") {
		t.Errorf("an agent's folder: %v", err)
	}
}

func TestReadSkillFileSymlinkedOutIsRefused(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeTree(t, base, map[string]string{"secret.txt": "TOKEN", "skills/s/SKILL.md": "---\ndescription: d\n---\nS"})
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(base, "skills", "s", "forms.md")); err != nil {
		t.Skip("no symlinks:", err)
	}
	set := mustLoad(t, Root{Path: filepath.Join(base, "skills"), Kind: KindSkills, Scope: ScopeProject, Bound: base})
	got, err := call(t, tool(t, set, Env{}, ToolReadSkill), map[string]string{"name": "s", "file": "forms.md"})
	if err == nil || strings.Contains(got, "TOKEN") || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("%q, %v", got, err)
	}
}

func TestSplitShellWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  a  b ", []string{"a", "b"}},
		{`"fix the bug" high`, []string{"fix the bug", "high"}},
		{`'it''s' x`, []string{"its", "x"}},
		{`a"b c"d`, []string{"ab cd"}},
		{`"say \"hi\"" \$x`, []string{`say "hi"`, "$x"}},
		{`'no \escape'`, []string{`no \escape`}},
		{`"unclosed rest`, []string{"unclosed rest"}},
		{`"" x`, []string{"", "x"}},
	} {
		equal(t, tc.in, SplitShellWords(tc.in), tc.want)
	}
}

// A Claude Code command follows Claude Code's contract: arguments given
// to a body without a placeholder are appended, $1… are shell-style
// words, $ARGUMENTS is the line as typed, ${CLAUDE_PLUGIN_ROOT} is the
// plugin's root and @path attaches a workspace file. A native command
// keeps Reasonix's rules.
func TestClaudeCommandArguments(t *testing.T) {
	t.Parallel()
	ws := fixtureDir(t, "workspace")
	set, _ := loadFixtures(t, Places{Workspace: ws}, "review-kit")
	env := Env{Workspace: ws}
	root := fixtureDir(t, "review-kit")
	for _, tc := range []struct {
		line    string
		want    []string
		notWant []string
	}{
		{"/review-kit:note keep it short", []string{"in the reviewer's voice.\n\nARGUMENTS: keep it short"}, nil},
		{"/review-kit:note", []string{"in the reviewer's voice."}, []string{"ARGUMENTS:"}},
		{`/review-kit:git:review-pr feature/login "error handling and logs"`, []string{
			"Review the branch feature/login, focusing on error handling and logs.",
			"!`git diff --stat feature/login`",
			"Follow the checklist in " + root + "/templates/checklist.md",
			"<file path=\"docs/style.md\">\nUse tabs. Wrap comments at 72 columns.\n</file>",
			"<file path=\"src/main.go\">\npackage main",
		}, []string{"ARGUMENTS:", "${CLAUDE_PLUGIN_ROOT}"}},
		{"/review-kit:deploy 'staging eu'", []string{"Deploy to staging eu with `make deploy ENV=staging eu`"}, nil},
	} {
		inv, ok := set.ResolveSlash(tc.line, env)
		if !ok || inv.Kind != InvokeCommand || !inv.Claude {
			t.Fatalf("%s: %+v", tc.line, inv)
		}
		for _, w := range tc.want {
			if !strings.Contains(inv.Text, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.line, w, inv.Text)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(inv.Text, w) {
				t.Errorf("%s: holds %q:\n%s", tc.line, w, inv.Text)
			}
		}
	}
	// The model's slash_command expands the same way.
	got, err := call(t, tool(t, set, env, ToolSlashCommand), map[string]string{"command": "review-kit:note", "arguments": `"a b" c`})
	if err != nil || !strings.HasSuffix(got, `ARGUMENTS: "a b" c`) {
		t.Errorf("slash_command: %q, %v", got, err)
	}
	// A native command: blank-split words, nothing appended.
	native := mustLoad(t, Root{Path: writeTree(t, t.TempDir(), map[string]string{"n.md": "N $1|", "plain.md": "P @docs/style.md"}), Kind: KindCommands})
	for line, want := range map[string]string{`/n "a b"`: `N "a|`, "/plain x": "P @docs/style.md"} {
		if inv, _ := native.ResolveSlash(line, env); inv.Text != want || inv.Claude {
			t.Errorf("%s: %q", line, inv.Text)
		}
	}
}

func TestInlineRefsIsBounded(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	writeTree(t, base, map[string]string{"secret.txt": "TOKEN"})
	ws := writeTree(t, filepath.Join(base, "ws"), map[string]string{
		"big.txt": strings.Repeat("x", MaxRefFileBytes+10), "bin.dat": "a\x00b", "ok.md": "OK",
	})
	for i := 0; i < MaxRefFiles+2; i++ {
		writeTree(t, ws, map[string]string{"f" + strconv.Itoa(i) + ".md": "F"})
	}
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(ws, "link.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	got := InlineRefs("see @big.txt, @bin.dat and @ok.md. not `@f1.md` nor me@ok.md; @../secret.txt @link.txt @missing.md", ws)
	for _, want := range []string{"<file path=\"big.txt\">", "[truncated]", "<file path=\"ok.md\">\nOK\n</file>", "[@../secret.txt not included: it is outside the workspace]", "[@link.txt not included: it is outside the workspace]"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q", want)
		}
	}
	for _, leak := range []string{"TOKEN", "bin.dat\">", "f1.md\">", "missing.md\">"} {
		if strings.Contains(got, leak) {
			t.Errorf("holds %q", leak)
		}
	}
	var many []string
	for i := 0; i < MaxRefFiles+2; i++ {
		many = append(many, "@f"+strconv.Itoa(i)+".md")
	}
	got = InlineRefs(strings.Join(many, " "), ws)
	if n := strings.Count(got, "<file "); n != MaxRefFiles || !strings.Contains(got, "[further @ references not included") {
		t.Errorf("%d files:\n%s", n, got)
	}
	if InlineRefs("@ok.md", "") != "@ok.md" {
		t.Error("no workspace, still inlined")
	}
}

// FuzzRenderClaude feeds a typed argument string and a body through
// Claude Code's rendering: it must never panic, $1… are words of the
// shell split, and arguments are never dropped.
func FuzzRenderClaude(f *testing.F) {
	for _, seed := range [][2]string{
		{"Review $1 on $2", `"a b" c`},
		{"no placeholder", `x 'y z'`},
		{"$ARGUMENTS $$ $0 $99", `\" \\ '`},
		{"${CLAUDE_PLUGIN_ROOT}/x $CLAUDE_PLUGIN_ROOTS", `"unclosed`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, body, args string) {
		out := RenderClaude(body, args, "/root")
		if a := strings.TrimSpace(args); a != "" && !claudeArgToken.MatchString(body) && !strings.HasSuffix(out, "ARGUMENTS: "+a) {
			t.Fatalf("arguments dropped: %q", out)
		}
		for _, w := range SplitShellWords(args) {
			if len(w) > len(args) {
				t.Fatalf("word %q longer than %q", w, args)
			}
		}
	})
}

// A Claude command's !`cmd` lines and ```! blocks are found for the host
// to run (after argument substitution, never in an attached file), and
// each output takes its line's place.
func TestClaudeCommandShellLinesFound(t *testing.T) {
	t.Parallel()
	ws := fixtureDir(t, "workspace")
	set, _ := loadFixtures(t, Places{Workspace: ws}, "review-kit")
	inv, _ := set.ResolveSlash("/review-kit:git:review-pr feature/login", Env{Workspace: ws})
	var cmds []string
	for _, l := range inv.Shell {
		cmds = append(cmds, l.Command)
		if inv.Text[l.Start:l.End] != "!`"+l.Command+"`" {
			t.Errorf("range %d:%d is %q", l.Start, l.End, inv.Text[l.Start:l.End])
		}
	}
	equal(t, "commands", cmds, []string{"git branch --show-current", "git diff --stat feature/login"})
	out := ReplaceShellLines(inv.Text, inv.Shell, []string{"main", " 2 files changed"})
	if !strings.Contains(out, "- Current branch: main\n- Changes against the base:  2 files changed\n") || strings.Contains(out, "!`") {
		t.Errorf("replaced:\n%s", out)
	}
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"a !`x` b!`not` (!`y`)", []string{"x", "y"}},
		{"```!\ngit status\ngit log -1\n```\nand !`z`", []string{"git status\ngit log -1", "z"}},
		{"```sh\n!`inside a fence runs too`\n```", []string{"inside a fence runs too"}},
		{"no lines, !` ` nor !``", nil},
	} {
		var got []string
		for _, l := range ShellLines(tc.text) {
			got = append(got, l.Command)
		}
		equal(t, tc.text, got, tc.want)
	}
	for cmd, want := range map[string][]string{
		"git status --porcelain":   {"git", "status", "--porcelain"},
		`git log -1 --format="%s"`: {"git", "log", "-1", "--format=%s"},
		"git diff | head -5":       {"bash", "-c", "git diff | head -5"},
		"ls *.go":                  {"bash", "-c", "ls *.go"},
		"FOO=1 make":               {"bash", "-c", "FOO=1 make"},
		"echo $HOME":               {"bash", "-c", "echo $HOME"},
	} {
		equal(t, cmd, ShellArgv(cmd), want)
	}
}
