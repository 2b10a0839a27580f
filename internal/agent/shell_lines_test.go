package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/plugincontent"
)

// loadClaudeKit loads files as the commands of the Claude Code package
// "ckit".
func loadClaudeKit(t *testing.T, files map[string]string) *plugincontent.Set {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, warns := plugincontent.Load([]plugincontent.Root{{Path: filepath.Join(dir, "commands"), Plugin: "ckit", Kind: plugincontent.KindCommands, Scope: plugincontent.ScopeCustom, Bound: dir, Claude: true}}, plugincontent.Options{})
	if len(warns) > 0 {
		t.Fatalf("loading ckit: %v", warns)
	}
	return set
}

// TestClaudeCommandShellLines: a Claude command's !`cmd` lines and ```!
// blocks run before the prompt is sent, each as a run_command call
// through the approval table and the user's answer (the command's
// allowed-tools grants nothing), their output inlined; a denied line is
// replaced by a note.
func TestClaudeCommandShellLines(t *testing.T) {
	t.Parallel()
	md := loadClaudeKit(t, map[string]string{
		"commands/status.md": "---\ndescription: status\nallowed-tools: Bash(go:*)\n---\nVersion: !`go version`\nOS:\n```!\ngo env GOOS\n```\nReview $1.",
	})
	for _, tc := range []struct {
		name   string
		mode   Approval
		answer PermissionOutcome
		asked  int
		want   []string
	}{
		{"yolo runs them", ApproveYolo, PermissionDeny, 0, []string{"Version: go version go", "OS:\n" + runtime.GOOS, "Review x."}},
		{"ask and allow", ApproveAsk, PermissionAllow, 2, []string{"Version: go version go", "OS:\n" + runtime.GOOS}},
		{"ask and deny", ApproveAsk, PermissionDeny, 2, []string{"Version: [!`go version` did not run or failed: ", "OS:\n[!`go env GOOS` did not run or failed: ", "Review x."}},
		{"auto asks too", ApproveAuto, PermissionDeny, 2, []string{"[!`go version` did not run or failed: "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prov := newScripted(answer("done"))
			h := newHarness(t, prov, withApproval(tc.mode), withContent(md, nil))
			h.editor.answers = func(PermissionRequest) PermissionOutcome { return tc.answer }
			s := h.session()
			if _, err := s.Prompt(ctx(t), "/ckit:status x"); err != nil {
				t.Fatal(err)
			}
			got := lastUser(prov.requests()[0])
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("the model got %q, want it to hold %q", got, w)
				}
			}
			ran := tc.mode == ApproveYolo || tc.answer == PermissionAllow
			if ran && strings.Contains(got, "!`go") || strings.Contains(got, "```!") {
				t.Errorf("a shell line reached the model as text: %q", got)
			}
			qs := h.editor.questions()
			if len(qs) != tc.asked {
				t.Fatalf("asked %d times, want %d: %+v", len(qs), tc.asked, qs)
			}
			for i, q := range qs {
				argv := [][]string{{"go", "version"}, {"go", "env", "GOOS"}}[i]
				if q.ToolCall.Name != "run_command" || !strings.Contains(q.ToolCall.Arguments, `"command":["`+strings.Join(argv, `","`)+`"]`) {
					t.Errorf("question %d shows %s %s", i, q.ToolCall.Name, q.ToolCall.Arguments)
				}
			}
			if shown := userMessages(h.updates.of(s.ID())); !slices.Equal(shown, []string{"/ckit:status x"}) {
				t.Errorf("shown %q", shown)
			}
		})
	}
}
