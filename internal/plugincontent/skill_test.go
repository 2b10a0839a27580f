package plugincontent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func skillNames(ss []Skill) []string { return names(ss, func(s Skill) string { return s.Name }) }
func slashNames(ss []Skill) []string { return names(ss, Skill.SlashName) }

func skill(desc, body string) string { return "---\ndescription: " + desc + "\n---\n" + body }

func TestPluginSkillsUseQualifiedSlashNamesWithoutChangingModelIndex(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"alpha/plan/SKILL.md":  skill("alpha plans", "ALPHA PLAN"),
		"beta/plan/SKILL.md":   skill("beta plans", "BETA PLAN"),
		"beta/review/SKILL.md": skill("reviews", "REVIEW"),
	})
	roots := func(alpha, beta string) []Root {
		return []Root{
			{Path: filepath.Join(base, "alpha"), Plugin: alpha, Kind: KindSkills, Scope: ScopeCustom},
			{Path: filepath.Join(base, "beta"), Plugin: beta, Kind: KindSkills, Scope: ScopeCustom},
		}
	}
	set := mustLoad(t, roots("alpha", "beta")...)
	equal(t, "model list", skillNames(set.Skills()), []string{"plan", "review"})
	equal(t, "slash list", slashNames(set.SlashSkills()), []string{"alpha:plan", "beta:plan", "beta:review"})
	if _, ok := set.ResolveSlashSkill("/plan"); ok {
		t.Fatal("/plan resolves although two plugins have plan")
	}
	if sk, ok := set.ResolveSlashSkill("review"); !ok || sk.Plugin != "beta" {
		t.Fatalf("/review: %+v %v", sk, ok)
	}
	if sk, ok := set.ResolveSlashSkill("beta:plan"); !ok || sk.Body != "BETA PLAN" {
		t.Fatalf("/beta:plan: %+v %v", sk, ok)
	}
	out, err := call(t, tool(t, set, Env{}, ToolRunSkill), map[string]string{"name": "plan"})
	if err != nil || !strings.Contains(out, "ALPHA PLAN") {
		t.Fatalf("run_skill plan: %q %v", out, err)
	}
	index := set.SkillIndex()
	if !strings.Contains(index, "- plan — alpha plans\n- review — reviews\n```") {
		t.Fatalf("index:\n%s", index)
	}
	equal(t, "index without plugin metadata", mustLoad(t, roots("", "")...).SkillIndex(), index)
}

func TestPluginSkillShortAliasIsHiddenAndProjectSkillKeepsShortName(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"ws/.reasonix/skills/plan/SKILL.md": skill("project plan", "PROJECT"),
		"p/plan/SKILL.md":                   skill("plugin plan", "PLUGIN PLAN"),
		"p/ship/SKILL.md":                   skill("ship it", "SHIP"),
		"q/plan/SKILL.md":                   skill("other plan", "Q PLAN"),
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "ws/.reasonix/skills"), Kind: KindSkills, Scope: ScopeProject},
		Root{Path: filepath.Join(base, "p"), Plugin: "p", Kind: KindSkills, Scope: ScopeCustom},
		Root{Path: filepath.Join(base, "q"), Plugin: "q", Kind: KindSkills, Scope: ScopeCustom},
	)
	equal(t, "slash list", slashNames(set.SlashSkills()), []string{"p:plan", "p:ship", "plan", "q:plan"})
	for typed, want := range map[string]string{"plan": "PROJECT", "/p:plan": "PLUGIN PLAN", "ship": "SHIP", "p:ship": "SHIP"} {
		sk, ok := set.ResolveSlashSkill(typed)
		if !ok || sk.Body != want {
			t.Errorf("%s: %+v %v", typed, sk, ok)
		}
	}
	for _, typed := range []string{"p:nothing", "bad name", "x:plan"} {
		if sk, ok := set.ResolveSlashSkill(typed); ok {
			t.Errorf("%s resolved to %+v", typed, sk)
		}
	}
	inv, ok := set.ResolveSlash("/ship  the   build ", Env{})
	want := "# Skill: ship\n> ship it\n(scope: custom · " + filepath.Join(base, "p/ship/SKILL.md") + ")\n\nSHIP\n\nArguments: the build"
	equal(t, "typed alias", []any{ok, inv.Kind, inv.Name, inv.Text}, []any{true, InvokeSkill, "p:ship", want})
}

func TestPluginClaudeAgentLoadsAsManualSubagent(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews contracts\ntools: [Read, Grep, \"mcp__*__search\", read]\nmodel: sonnet\ncolor: blue\n---\nYou review contracts.",
		"agents/keeper.md":   "---\ndescription: keeps\nmodel: deepseek-reasoner\ntools: Bash, WebFetch\n---\nKEEP",
	})
	set := mustLoad(t, Root{Path: filepath.Join(base, "agents"), Plugin: "legal", Kind: KindAgents, Scope: ScopeCustom})
	sk, ok := set.ResolveSlashSkill("legal:agent:reviewer")
	if !ok {
		t.Fatal("legal:agent:reviewer does not resolve")
	}
	equal(t, "agent", []any{sk.Name, sk.Subagent, sk.Manual, sk.Agent, sk.Model, sk.AllowedTools, sk.Color},
		[]any{"reviewer", true, true, true, "", []string{"read_file", "grep", "mcp__*__search"}, "blue"})
	keeper, _ := set.ResolveSlashSkill("legal:agent:keeper")
	equal(t, "keeper", []any{keeper.Model, keeper.AllowedTools}, []any{"deepseek-reasoner", []string{"bash", "web_fetch"}})
	// Not in the skills block; in the Agents block by full name.
	equal(t, "index", set.SkillIndex(), agentsHeading+"\n\n"+agentsPolicy+"\n\n```\n- legal:agent:keeper — keeps\n- legal:agent:reviewer — Reviews contracts\n```")
	equal(t, "model list", skillNames(set.Skills()), []string{"keeper", "reviewer"})
	if _, ok := set.ResolveSlashSkill("legal:reviewer"); ok {
		t.Fatal("an agent answers to the skill slash name")
	}
}

func TestPluginAgentAndSkillWithSameNameHaveDistinctQualifiedInvocations(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"skills/leave-tracker/SKILL.md": skill("track leave", "INLINE TRACKER"),
		"agents/leave-tracker.md":       skill("tracker agent", "AGENT TRACKER"),
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "skills"), Plugin: "p", Kind: KindSkills, Scope: ScopeCustom},
		Root{Path: filepath.Join(base, "agents"), Plugin: "p", Kind: KindAgents, Scope: ScopeCustom},
	)
	equal(t, "slash list", slashNames(set.SlashSkills()), []string{"p:agent:leave-tracker", "p:leave-tracker"})
	r := &recordingRunner{}
	env := Env{Runner: r}
	inline, _ := set.ResolveSlash("/p:leave-tracker march", env)
	if inline.Kind != InvokeSkill || !strings.Contains(inline.Text, "INLINE TRACKER\n\nArguments: march") {
		t.Fatalf("inline: %+v", inline)
	}
	sub, _ := set.ResolveSlash("/p:agent:leave-tracker count days", env)
	if sub.Kind != InvokeSubagent || sub.Subagent == nil || sub.Subagent.Task != "count days" || sub.Subagent.Instructions != "AGENT TRACKER" {
		t.Fatalf("subagent: %+v", sub)
	}
	usage, _ := set.ResolveSlash("/p:agent:leave-tracker", env)
	equal(t, "usage", []any{usage.Kind, usage.Notice, usage.Subagent == nil}, []any{InvokeSubagent, "usage: /leave-tracker <task>", true})
	out, _ := call(t, tool(t, set, env, ToolRunSkill), map[string]string{"name": "leave-tracker"})
	if !strings.Contains(out, "INLINE TRACKER") {
		t.Fatalf("run_skill takes the skill (first root): %q", out)
	}
}

func TestManualInvocationSkillExcludedFromIndex(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"auto/SKILL.md":   skill("automatic", "A"),
		"manual/SKILL.md": "---\ndescription: by hand\ninvocation: Manual\n---\nM",
		"sub/SKILL.md":    "---\ndescription: isolated\nrunAs: subagent\n---\nS",
	})
	set := mustLoad(t, Root{Path: base, Kind: KindSkills, Scope: ScopeProject})
	index := set.SkillIndex()
	want := indexHeading + "\n\n" + indexPolicy + "\n\n```\n- auto — automatic\n- sub [🧬 subagent] — isolated\n```"
	equal(t, "index", index, want)
	if !strings.Contains(indexPolicy, `run_skill({ name: "<skill-name>", arguments: "<task>" })`) || !strings.Contains(indexPolicy, "[🧬 subagent]") {
		t.Fatal("the policy paragraph does not say how to call run_skill")
	}
	if out, err := call(t, tool(t, set, Env{}, ToolRunSkill), map[string]string{"name": "manual"}); err != nil || !strings.Contains(out, "\n\nM\n") {
		t.Fatalf("a manual skill must stay invocable: %q %v", out, err)
	}
}

func TestApplyIndexTruncates(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var lines []string
	for i := range 60 {
		name := fmt.Sprintf("skill-%02d", i)
		desc := strings.Repeat("d", 90)
		files[name+"/SKILL.md"] = skill(desc, "x")
		lines = append(lines, "- "+name+" — "+desc)
	}
	set := mustLoad(t, Root{Path: writeTree(t, t.TempDir(), files), Kind: KindSkills})
	full := strings.Join(lines, "\n")
	n := utf8.RuneCountInString(full)
	if n <= IndexMaxRunes {
		t.Fatalf("test lines are only %d runes", n)
	}
	want := string([]rune(full)[:IndexMaxRunes]) + fmt.Sprintf("\n… (truncated %d chars)", n-IndexMaxRunes)
	index := set.SkillIndex()
	got := index[strings.Index(index, "```\n")+4 : len(index)-4]
	equal(t, "clipped lines", got, want)
	equal(t, "empty set", mustLoad(t, Root{Path: t.TempDir(), Kind: KindSkills}).SkillIndex(), "")
}

func TestIndexLineClipsGraphemeClusters(t *testing.T) {
	t.Parallel()
	family := "👨‍👩‍👧‍👦" // 7 runes, one grapheme cluster
	accent := "e\u0301" // 2 runes, one cluster
	for _, tc := range []struct {
		name, desc, want string
		subagent         bool
	}{
		{"short stays", "fits", "- n — fits", false},
		{"newlines become spaces", "a\nb", "- n — a b", false},
		{"missing description", "", "- n — " + missingDescription, false},
		// budget = 130-1 = 129 runes; 125 x + family (7) would end at 132.
		{"emoji sequence not split", strings.Repeat("x", 125) + family + "tail", "- n — " + strings.Repeat("x", 125) + "…", false},
		{"emoji sequence kept when it fits", strings.Repeat("x", 121) + family + "tail", "- n — " + strings.Repeat("x", 121) + family + "…", false},
		{"combining mark not split", strings.Repeat("x", 127) + accent + "zz", "- n — " + strings.Repeat("x", 127) + "…", false},
		// the tag " [🧬 subagent]" takes 13 runes: budget 116.
		{"tag counted", strings.Repeat("y", 120), "- n [🧬 subagent] — " + strings.Repeat("y", 115) + "…", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := indexLine(Skill{Name: "n", Description: tc.desc, Subagent: tc.subagent})
			equal(t, "line", got, tc.want)
		})
	}
}

func TestNonSkillMarkdownInClaudeSkillRootsIgnored(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"notes.md":      "# just notes\n",
		"empty-key.md":  "---\ncolor:\n---\nhas a recognised key with no value",
		"flagged.md":    "---\nallowed-tools: Read\ndescription: a flat skill\n---\nFLAT",
		"other-keys.md": "---\ntitle: not a skill key\n---\nNOPE",
		"dir/SKILL.md":  "DIR SKILL WITHOUT FRONT MATTER",
	}
	base := t.TempDir()
	writeTree(t, base, map[string]string{})
	for _, where := range []string{"ws/.claude/skills", "plugin/skills", "ws/.reasonix/skills"} {
		for name, c := range files {
			writeTree(t, filepath.Join(base, where), map[string]string{name: c})
		}
	}
	for _, tc := range []struct {
		root Root
		want []string
	}{
		{Root{Path: filepath.Join(base, "ws/.claude/skills"), Kind: KindSkills, Scope: ScopeProject}, []string{"dir", "empty-key", "flagged"}},
		{Root{Path: filepath.Join(base, "ws/.reasonix/skills"), Kind: KindSkills, Scope: ScopeProject}, []string{"dir", "empty-key", "flagged", "notes", "other-keys"}},
		{Root{Path: filepath.Join(base, "plugin/skills"), Plugin: "p", Kind: KindSkills, Scope: ScopeCustom}, []string{"dir", "empty-key", "flagged", "notes", "other-keys"}},
	} {
		equal(t, tc.root.Path, skillNames(mustLoad(t, tc.root).Skills()), tc.want)
	}
}

func TestSkillDiscovery(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"top/SKILL.md":                    "---\nname: renamed\ndescription: top\n---\nTOP",
		"badname/SKILL.md":                "---\nname: not valid!\ndescription: d\n---\nB",
		"group/inner/SKILL.md":            skill("level 2 with description", "IN"),
		"group/nodesc/SKILL.md":           "no description below level 1",
		"group/flat.md":                   skill("flat at level 2", "F"),
		"a/b/deep/SKILL.md":               skill("level 3", "L3"),
		"a/b/c/deeper/SKILL.md":           skill("level four", "L4"),
		".hidden/h/SKILL.md":              skill("hidden", "H"),
		"node_modules/n/SKILL.md":         skill("deps", "N"),
		"Assets/as/SKILL.md":              skill("assets", "A"),
		"nodesc-top/SKILL.md":             "TOP WITHOUT DESCRIPTION",
		"with-extras/SKILL.md":            skill("extras", "MAIN"),
		"with-extras/references/b.md":     "  B REF  \n",
		"with-extras/references/a.md":     "A REF",
		"with-extras/references/skip.txt": "not markdown",
		"with-extras/scripts/run.sh":      "#!/bin/sh",
		"with-extras/scripts/tool":        "bin",
		"with-extras/scripts/.env":        "dot",
		"with-extras/scripts/data.json":   "{}",
		"with-extras/nested/SKILL.md":     skill("inside a skill dir", "never scanned"),
		"bad name.md":                     skill("invalid stem", "X"),
	})
	set, warns := Load([]Root{{Path: base, Kind: KindSkills, Scope: ScopeProject}}, Options{})
	equal(t, "names", skillNames(set.Skills()), []string{"badname", "deep", "flat", "inner", "nodesc-top", "renamed", "with-extras"})
	sk, _ := set.lookupSkill("with-extras")
	s := filepath.Join(base, "with-extras", "scripts")
	wantBody := "MAIN\n\n## Reference: a\n\nA REF\n\n## Reference: b\n\nB REF\n\n## Scripts\n\n" +
		"This skill ships the scripts below. Run them by their absolute path when the instructions call for them instead of rewriting what they do:\n" +
		"\n- `" + filepath.Join(s, "run.sh") + "`\n- `" + filepath.Join(s, "tool") + "`"
	equal(t, "augmented body", sk.Body, wantBody)
	wantWarn := `warning: skill "nodesc-top" at ` + filepath.Join(base, "nodesc-top/SKILL.md") + ` has no description: — it will load but won't appear in the skills index`
	badStem := "skill file " + filepath.Join(base, "bad name.md") + `: "bad name" is not a valid skill name (a letter or digit, then up to 63 letters, digits, ".", "_" or "-"); not served`
	equal(t, "warnings", names(warns, func(w Warning) string { return w.Msg }), []string{badStem, wantWarn})
	if !strings.Contains(set.SkillIndex(), "- nodesc-top — "+missingDescription) {
		t.Fatal("a skill without description is not listed with the placeholder")
	}

	for depth, want := range map[int][]string{
		1: {"badname", "nodesc-top", "renamed", "with-extras"},
		4: {"badname", "deep", "deeper", "flat", "inner", "nodesc-top", "renamed", "with-extras"},
	} {
		set, _ := Load([]Root{{Path: base, Kind: KindSkills}}, Options{SkillDepth: depth})
		equal(t, fmt.Sprint("depth ", depth), skillNames(set.Skills()), want)
	}
}

func TestSkillFrontMatterFields(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"a/SKILL.md": "---\ndescription: d\nrunAs: subagent\nallowed-tools: [\"read_file\", 'grep' , mcp__*]\nmodel: m1\neffort: high\nread-only: Yes\nprofiles: economy, delivery\nrequires: mcp-server:github\n---\nA",
		"b/SKILL.md": "---\ndescription: d\ncontext: FORK\ntools:\n  - bash\n  - grep\n---\nB",
		"c/SKILL.md": "---\ndescription: d\nagent: general\nread-only: no\n---\nC",
		"d/SKILL.md": "---\ndescription: d\nrunAs: Subagent\nmetadata:\n  invocation: manual\n---\nD",
	})
	set := mustLoad(t, Root{Path: base, Kind: KindSkills})
	get := func(n string) Skill { s, _ := set.lookupSkill(n); return s }
	a := get("a")
	equal(t, "a", []any{a.Subagent, a.AllowedTools, a.Model, a.Effort, a.ReadOnly, a.Profiles, a.Requires},
		[]any{true, []string{"read_file", "grep", "mcp__*"}, "m1", "high", true, []string{"economy", "delivery"}, []string{"mcp-server:github"}})
	equal(t, "b", []any{get("b").Subagent, get("b").AllowedTools}, []any{true, []string{"bash", "grep"}})
	equal(t, "c", []any{get("c").Subagent, get("c").ReadOnly}, []any{true, false})
	equal(t, "d: runAs is exact, nested keys are lifted", []any{get("d").Subagent, get("d").Manual}, []any{false, true})
}

func TestSkillSymlinks(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"elsewhere/linked/SKILL.md": skill("through a link", "LINKED"),
		"elsewhere/flat.md":         skill("linked flat", "FLAT"),
		"root/own/SKILL.md":         skill("own", "OWN"),
	})
	root := filepath.Join(base, "root")
	for link, target := range map[string]string{
		"root/linked":  filepath.Join(base, "elsewhere/linked"),
		"root/flat.md": filepath.Join(base, "elsewhere/flat.md"),
		"root/loop":    root,
		"root/gone":    filepath.Join(base, "nowhere"),
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	// Links are followed inside the root's bound (here base, as the
	// workspace or plugin root is for Roots' roots).
	set := mustLoad(t, Root{Path: root, Kind: KindSkills, Bound: base})
	equal(t, "names", skillNames(set.Skills()), []string{"flat", "linked", "own"})
	set = mustLoad(t, Root{Path: root, Kind: KindSkills})
	equal(t, "bounded by the root itself", skillNames(set.Skills()), []string{"own"})
}

func TestRunSkillSubagentRequiresArgs(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"sub/SKILL.md":    "---\ndescription: isolated\nrunAs: subagent\nallowed-tools: read_file\nmodel: m\n---\nSUB BODY",
		"inline/SKILL.md": skill("inline one", "INLINE BODY"),
	})
	set := mustLoad(t, Root{Path: base, Kind: KindSkills, Scope: ScopeProject})
	r := &recordingRunner{}
	run := tool(t, set, Env{Runner: r}, ToolRunSkill)
	_, err := call(t, run, map[string]string{"name": "sub", "arguments": "  "})
	equal(t, "no task", err.Error(), `run_skill: skill "sub" is a subagent and requires 'arguments' — the subagent has no other context, so describe the concrete task`)
	out, err := call(t, run, map[string]string{"name": "[🧬 subagent] sub", "arguments": "find the bug", "continue_from": "run-1"})
	equal(t, "run", []any{out, err}, []any{"answer to find the bug", nil})
	equal(t, "request", r.got, []SubagentRequest{{Skill: "sub", SlashName: "sub", Instructions: "SUB BODY", Task: "find the bug",
		AllowedTools: []string{"read_file"}, Model: "m", ContinueFrom: "run-1"}})

	_, err = call(t, tool(t, set, Env{}, ToolRunSkill), map[string]string{"name": "sub", "arguments": "x"})
	equal(t, "no runner", err.Error(), `run_skill: skill "sub" is runAs=subagent but no subagent runner is configured in this session`)
	_, err = call(t, run, map[string]string{"name": "inline", "continue_from": "run-1"})
	equal(t, "continuation of an inline skill", err.Error(), "run_skill: subagent continuation is only valid for runAs=subagent skills")
	out, _ = call(t, run, map[string]string{"name": "- inline — inline one", "arguments": "do it"})
	want := "<skill-pin name=\"inline\">\n# Skill: inline\n> inline one\n(scope: project · " + filepath.Join(base, "inline/SKILL.md") + ")\n\nINLINE BODY\n\nArguments: do it\n</skill-pin>"
	equal(t, "pinned render", out, want)
	for _, tc := range []struct{ name, want string }{
		{"[🧬 subagent]", `run_skill requires a 'name' argument (got "[🧬 subagent]", which is just a marker/tag)`},
		{"", `run_skill requires a 'name' argument (got "", which is just a marker/tag)`},
		{"p:inline", `unknown skill "p:inline" — available: inline, sub`},
	} {
		_, err := call(t, run, map[string]string{"name": tc.name})
		equal(t, tc.name, err.Error(), tc.want)
	}
	_, err = call(t, tool(t, mustLoad(t), Env{}, ToolRunSkill), map[string]string{"name": "x"})
	equal(t, "empty set", err.Error(), `unknown skill "x" — available: (none — no skills defined)`)
	if _, err = run.Call(context.Background(), []byte(`{"name":"sub","fork_from":"x"}`)); err == nil || !strings.HasPrefix(err.Error(), "invalid args: ") {
		t.Fatalf("unknown member: %v", err)
	}
}

func TestReadSkillRejectsSubagent(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"sub/SKILL.md":    "---\ndescription: isolated\ncontext: fork\n---\nS",
		"inline/SKILL.md": "---\nname: inline\n---\nI",
	})
	set := mustLoad(t, Root{Path: base, Kind: KindSkills, Scope: ScopeGlobal})
	read := tool(t, set, Env{Runner: &recordingRunner{}}, ToolReadSkill)
	if !read.ReadOnly {
		t.Fatal("read_skill is not read-only")
	}
	_, err := call(t, read, map[string]string{"name": "sub"})
	equal(t, "subagent", err.Error(), `read_skill: skill "sub" is a subagent and must be executed, not read — use run_skill (or the dedicated sub tool)`)
	out, _ := call(t, read, map[string]string{"name": "inline"})
	equal(t, "inline", out, "<skill-pin name=\"inline\">\n# Skill: inline\n(scope: global · "+filepath.Join(base, "inline/SKILL.md")+")\n\nI\n</skill-pin>")
}

func TestSkillRequiresGate(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{"gh/SKILL.md": "---\ndescription: d\nrequires: mcp-server:github, mcp-server:jira\n---\nG"})
	set := mustLoad(t, Root{Path: base, Kind: KindSkills})
	env := Env{Ready: func(c string) bool { return c == "mcp-server:jira" }}
	_, err := call(t, tool(t, set, env, ToolRunSkill), map[string]string{"name": "gh"})
	if !errors.Is(err, ErrSkillUnavailable) || err.Error() != `run_skill: skill "gh" requires unavailable capabilities: mcp-server:github: skill invocation unavailable` {
		t.Fatalf("gate: %v", err)
	}
	inv, _ := set.ResolveSlash("/gh now", env)
	if inv.Text != "" || !strings.Contains(inv.Notice, "requires unavailable capabilities: mcp-server:github") {
		t.Fatalf("typed: %+v", inv)
	}
	if _, err := call(t, tool(t, set, Env{}, ToolRunSkill), map[string]string{"name": "gh"}); err != nil {
		t.Fatalf("no gate: %v", err)
	}
}
