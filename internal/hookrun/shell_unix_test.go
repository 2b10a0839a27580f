//go:build unix

package hookrun

import (
	"context"
	"testing"
)

func TestLoadExpandsReasonixPluginRootBeforeShellLaunch(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{"Stop": {
		// Single quotes: only the host can have put the root there.
		{"command": `printf '%s\n' '${REASONIX_PLUGIN_ROOT}' '$CLAUDE_PLUGIN_ROOT' '%CLAUDE_PLUGIN_ROOT%'; exit 1`, "shell": "auto"},
	}}, nil)
	r := load(t, Sources{Packages: []Package{pkg}})
	res := r.Run(context.Background(), Stop, Payload{}).Results[0]
	if want := pkg.Root + "\n" + pkg.Root + "\n" + pkg.Root; res.Stdout != want || res.Decision != Warn {
		t.Fatalf("stdout %q decision %s, want %q", res.Stdout, res.Decision, want)
	}
}

func TestShellFormHonorsExitStderrAndTimeout(t *testing.T) {
	t.Parallel()
	pkg := v1Package(t, "p", map[string][]map[string]any{
		"PreToolUse": {
			{"command": `"$REASONIX_PLUGIN_ROOT/bin/greet.sh" "a b" && echo "$REASONIX_PLUGIN_NAME" >&2; exit 2`, "shell": "bash", "timeout": 120000},
		},
		"UserPromptSubmit": {{"command": "bin/greet.sh world; sleep 100", "timeout": 50}},
	}, map[string]string{"bin/greet.sh": "+x:#!/bin/sh\necho \"hello $1\"\n"})
	r := load(t, Sources{Packages: []Package{pkg}})
	rep := r.Run(context.Background(), PreToolUse, Payload{ToolName: "bash"})
	res := rep.Results[0]
	if !rep.Blocked || rep.Reason != "p" || res.Stdout != "hello a b" || res.ExitCode != 2 {
		t.Fatalf("report %+v", rep)
	}
	// Legacy form: the command line is joined onto the root, then sh -c.
	blocked, _, notices := r.UserPromptSubmit(context.Background(), Payload{Prompt: "x"})
	if !blocked || len(notices) != 1 {
		t.Fatalf("blocked %v notices %q", blocked, notices)
	}
}
