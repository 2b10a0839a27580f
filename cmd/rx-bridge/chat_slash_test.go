package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installKit installs a package with a command, a prompt, a skill and an
// agent into home.
func installKit(t *testing.T, home string) {
	t.Helper()
	src := t.TempDir()
	for rel, body := range map[string]string{
		"reasonix-plugin.json":  `{"apiVersion":"reasonix.io/plugin/v1","name":"kit","version":"1.0.0","contributes":{"commands":["commands"],"prompts":["prompts"],"skills":["skills"],"agents":["agents"]}}`,
		"commands/review.md":    "---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $1 carefully.",
		"prompts/explain.md":    "---\ndescription: Explain something\n---\nExplain $ARGUMENTS simply.",
		"skills/plan/SKILL.md":  "---\ndescription: Plan the work\n---\nMake a plan.",
		"agents/reviewer.md":    "---\nname: reviewer\ndescription: Reviews diffs\n---\nYou review.",
		"commands/sub/deep.md":  "Deep $ARGUMENTS",
		"skills/plan/notes.txt": "n",
	} {
		p := filepath.Join(src, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	installSource(t, home, src)
}

// TestChatSlashCommands: /help lists a package's commands, prompts,
// skills and agents with their argument hints and descriptions, and a
// typed /kit:review line runs a turn on the expanded text (the echo model
// answers with what it was given).
func TestChatSlashCommands(t *testing.T) {
	t.Parallel()
	getenv, ws := chatEnv(t, chatServer(t), "ask")
	installKit(t, getenv("RX_BRIDGE_HOME"))
	code, stdout, stderr := chatRun(t, getenv, "/help\n/kit:review notes.txt\n/kit:explain the moon\n", "--workspace", ws)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	for _, want := range []string{
		"  /help - this list\n",
		"  /kit:review <file> - Review a file\n",
		"  /kit:explain - Explain something\n",
		"  /kit:sub:deep - (no description)\n",
		"  /kit:plan - Plan the work\n",
		"  /kit:agent:reviewer [subagent] - Reviews diffs\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("/help lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"Review notes.txt carefully.\n", "Explain the moon simply.\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the model did not get the expanded text %q:\n%s", want, stdout)
		}
	}
}
