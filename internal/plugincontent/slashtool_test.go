package plugincontent

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestSlashToolNameClashCommandWins(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"skills/deploy/SKILL.md": "---\ndescription: skill deploy\n---\nSKILL BODY",
		"commands/deploy.md":     "---\ndescription: command deploy\n---\nCOMMAND $1",
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "commands"), Kind: KindCommands},
		Root{Path: filepath.Join(base, "skills"), Kind: KindSkills, Scope: ScopeProject},
	)
	tl := tool(t, set, Env{}, ToolSlashCommand)
	out, err := call(t, tl, map[string]string{"command": "/deploy", "arguments": "prod now"})
	equal(t, "expansion", []any{out, err}, []any{"Expanded /deploy — follow these instructions now:\n\nCOMMAND prod", nil})
	list, _ := call(t, tl, map[string]string{})
	equal(t, "list", list, "Available slash commands:\n- /deploy — command deploy")
}

func TestPluginSlashToolShowsOnlyCanonicalQualifiedName(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"commands/status.md":   "---\ndescription: show status\nargument-hint: [verbose]\n---\nSTATUS $ARGUMENTS",
		"skills/plan/SKILL.md": "---\ndescription: plan work\n---\nPLAN",
	})
	set := mustLoad(t,
		Root{Path: filepath.Join(base, "commands"), Plugin: "pkg", Kind: KindCommands, Scope: ScopeCustom},
		Root{Path: filepath.Join(base, "skills"), Plugin: "pkg", Kind: KindSkills, Scope: ScopeCustom},
	)
	tl := tool(t, set, Env{}, ToolSlashCommand)
	if !strings.HasSuffix(tl.Schema.Description, "Available: pkg:plan, pkg:status.") || !tl.ReadOnly {
		t.Fatalf("description: %q", tl.Schema.Description)
	}
	list, _ := call(t, tl, map[string]string{"command": "list"})
	equal(t, "list", list, "Available slash commands:\n- /pkg:plan — plan work\n- /pkg:status [verbose] — show status")
	if _, err := call(t, tl, map[string]string{"command": "status"}); err == nil {
		t.Fatal("the hidden alias is reachable through slash_command")
	}
	out, _ := call(t, tl, map[string]string{"command": "pkg:plan", "arguments": "the  release"})
	want := "Expanded /pkg:plan — follow these instructions now:\n\n# Skill: plan\n> plan work\n(scope: custom · " +
		filepath.Join(base, "skills/plan/SKILL.md") + ")\n\nPLAN\n\nArguments: the release"
	equal(t, "skill through the tool", out, want)
}

func TestSlashToolList(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{
		"a.md": "---\ndescription: first\nargument-hint:\n  - file\n  - mode\n---\nA",
		"b.md": "B",
	})
	set := mustLoad(t, Root{Path: base, Kind: KindCommands})
	tl := tool(t, set, Env{}, ToolSlashCommand)
	for _, args := range []string{``, `{}`, `{"command":""}`, `{"command":"list"}`, `{"command":"/list"}`} {
		out, err := tl.Call(context.Background(), json.RawMessage(args))
		equal(t, args, []any{out, err}, []any{"Available slash commands:\n- /a [file, mode] — first\n- /b", nil})
	}
}

func TestSlashToolUnknown(t *testing.T) {
	t.Parallel()
	base := writeTree(t, t.TempDir(), map[string]string{"a.md": "A", "b.md": "B"})
	tl := tool(t, mustLoad(t, Root{Path: base, Kind: KindCommands}), Env{}, ToolSlashCommand)
	for _, tc := range []struct{ args, want string }{
		{`{"command":"nope"}`, `no slash command "nope"; available: a, b`},
		{`{"command":`, "invalid args: "},
		{`{"cmd":"a"}`, "invalid args: "},
		{`{"command":"a"} {}`, "invalid args: trailing data"},
		{`{"command":5}`, "invalid args: "},
	} {
		_, err := tl.Call(context.Background(), json.RawMessage(tc.args))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want prefix %q", tc.args, err, tc.want)
		}
	}
}

func TestSlashToolEmptyRegistry(t *testing.T) {
	t.Parallel()
	tl := tool(t, mustLoad(t, Root{Path: t.TempDir(), Kind: KindCommands}), Env{}, ToolSlashCommand)
	if !strings.HasSuffix(tl.Schema.Description, "No slash commands are configured in this project.") {
		t.Fatalf("description: %q", tl.Schema.Description)
	}
	out, _ := call(t, tl, map[string]string{})
	equal(t, "list", out, "No slash commands are configured in this project.")
	_, err := call(t, tl, map[string]string{"command": "x"})
	equal(t, "unknown", err.Error(), `no slash command "x"; available: `)
	var schema map[string]any
	if err := json.Unmarshal(tl.Schema.Parameters, &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("schema %s: %v", tl.Schema.Parameters, err)
	}
}
