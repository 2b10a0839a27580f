package manifest

import (
	"strings"
	"testing"
)

// TestRenderTrustPrograms: the FULL TRUST block lists a package's hook
// commands and stdio MCP servers beside its runtime, with arguments
// quoted and variables by name only; a package with programs but no
// runtime gets a block of its own; one with neither gets none.
func TestRenderTrustPrograms(t *testing.T) {
	t.Parallel()
	hook := Program{Kind: ProgramHook, Label: "PreToolUse match=Bash", Command: `python3 "/p/check.py"`, Shell: true}
	mcp := Program{Kind: ProgramMCP, Label: "db [stdio]", Command: "/usr/bin/npx", Args: []string{"-y", "pkg", "a b"},
		Env: EnvVarsOf(map[string]string{"TOKEN": "secret-value-123", "REASONIX_PLUGIN_ROOT": "/p"}, "REASONIX_PLUGIN_ROOT")}
	for _, tc := range []struct {
		name  string
		rt    *Runtime
		progs []Program
		want  string
	}{
		{"nothing", nil, nil, ""},
		{"programs only", nil, []Program{hook, mcp}, "programs: FULL TRUST\n" +
			"  hook PreToolUse match=Bash (shell): python3 \"/p/check.py\"\n" +
			"  MCP server db [stdio]: /usr/bin/npx -y pkg \"a b\"\n" +
			"    env: TOKEN=<set, 16 chars>\n" +
			"  risk: " + ProgramsRisk + ".\n"},
		// The runtime's own lines (which say on Windows that /bin/x
		// cannot start there), then the programs before the risk line.
		{"runtime and programs", &Runtime{Command: "/bin/x"}, []Program{mcp}, withPrograms(t, &Runtime{Command: "/bin/x"},
			"  MCP server db [stdio]: /usr/bin/npx -y pkg \"a b\"\n"+
				"    env: TOKEN=<set, 16 chars>\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			if err := RenderTrust(&b, tc.rt, "/r", tc.progs...); err != nil {
				t.Fatal(err)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
			if strings.Contains(b.String(), "secret-value") {
				t.Error("the block shows a value")
			}
		})
	}
}

func TestProgramRelocate(t *testing.T) {
	t.Parallel()
	p := Program{Command: "/src/bar/bin/x", Args: []string{"--root", "/src/bar/data", "keep"}}
	got := p.Relocate("/src/bar", "/home/plugins/bar")
	if got.Command != "/home/plugins/bar/bin/x" || got.Args[1] != "/home/plugins/bar/data" || got.Args[2] != "keep" || p.Args[1] != "/src/bar/data" {
		t.Errorf("Relocate = %+v (original %+v)", got, p)
	}
}

// withPrograms is the block of rt alone with lines inserted before its
// risk line.
func withPrograms(t *testing.T, rt *Runtime, lines string) string {
	t.Helper()
	var b strings.Builder
	if err := RenderTrust(&b, rt, "/r"); err != nil {
		t.Fatal(err)
	}
	base := b.String()
	i := strings.LastIndex(base, "  risk: ")
	if i < 0 || !strings.HasPrefix(base, "runtime: FULL TRUST\n") || !strings.HasSuffix(base, "  risk: "+TrustRisk+".\n") {
		t.Fatalf("the runtime's block alone:\n%s", base)
	}
	return base[:i] + lines + base[i:]
}
