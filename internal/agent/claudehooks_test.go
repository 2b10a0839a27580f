package agent

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/examples/examplestest"
	"github.com/rx-bridge/rx-bridge/extproto"
	"github.com/rx-bridge/rx-bridge/internal/hookrun"
	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// The tests of this file run the Claude Code-shaped fixture plugins of
// internal/hookrun/testdata through whole turns: what their output asks
// of the turn, as Claude Code's contract has it (PLUGIN_CONTENTS §12).

// hookFixture copies internal/hookrun/testdata/<name> into a fresh
// directory and loads it as an installed package.
func hookFixture(t *testing.T, name string) hookrun.Package {
	t.Helper()
	src := filepath.Join(examplestest.RepoRoot(t), "internal", "hookrun", "testdata", name)
	root := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(root, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(root, rel), b, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return hookrun.Package{Name: name, Root: root, Manifest: m}
}

// userContents are the user messages of a request.
func userContents(msgs []extproto.ProviderMessage) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == extproto.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// A Stop hook's decision "block" makes the turn go on with its reason as
// the next instruction, bounded by the hook's own stop_hook_active check,
// or by the host's limit.
func TestStopHookBlockContinuesTurn(t *testing.T) {
	t.Parallel()
	skipWithoutSh(t)
	tests := []struct {
		name     string
		state    string
		requests int
		notice   string
	}{
		{"hook bounds itself with max", "task: write the summary\niteration: 0\nmax: 2\n", 3, "keep-going: iteration 2"},
		{"hook reads stop_hook_active", "task: write the summary\niteration: 0\nonce: true\n", 2, "keep-going: iteration 1"},
		{"host bounds a hook that never lets go", "task: write the summary\niteration: 0\n", maxStopContinues + 1, "asked the model to go on once more; the turn ends here"},
		{"no state: the turn ends", "", 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := loadHooks(t, nil, hookFixture(t, "keep-going"))
			var steps []step
			for range maxStopContinues + 3 {
				steps = append(steps, answer("stopping here"))
			}
			prov := newScripted(steps...)
			h := newHarness(t, prov, withHooks(r))
			if tc.state != "" {
				h.write(".claude/keep-going.local.md", tc.state)
			}
			s := h.session()
			res, err := s.Prompt(ctx(t), "go")
			if err != nil || res.Stop != StopEndTurn {
				t.Fatalf("Prompt = %+v, %v", res, err)
			}
			reqs := prov.requests()
			if len(reqs) != tc.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tc.requests)
			}
			if tc.requests > 1 {
				us := userContents(reqs[1].Body.Messages)
				if last := us[len(us)-1]; !strings.Contains(last, "write the summary") || !strings.Contains(last, `<hook-context event="Stop">`) {
					t.Errorf("the second request's last user message %q", last)
				}
			}
			ns := strings.Join(noticesOf(h.updates.of(s.ID()), NoticeWarning), "\n")
			if tc.notice != "" && !strings.Contains(ns, tc.notice) {
				t.Errorf("notices %q lack %q", ns, tc.notice)
			}
		})
	}
}

// A PostToolUse hook's decision "block" reason and additionalContext
// reach the model with the tool's result; continue: false ends the turn.
func TestPostToolUseHookOutputReachesModel(t *testing.T) {
	t.Parallel()
	skipWithoutSh(t)
	tests := []struct {
		name, content string
		model         string
		halt          bool
	}{
		{"block reason", "x TODO", "post-check: the file still has a TODO; finish it", false},
		{"additional context", "x", "post-check: the written file passed the checks", false},
		{"continue false", "x FIXME", "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := loadHooks(t, nil, hookFixture(t, "post-check"))
			prov := newScripted(calls(call("c1", "apply_edit", map[string]any{"path": "a.txt", "content": tc.content})), answer("done"))
			h := newHarness(t, prov, withHooks(r))
			s := h.session()
			res, err := s.Prompt(ctx(t), "go")
			if err != nil {
				t.Fatal(err)
			}
			if tc.halt {
				ns := strings.Join(noticesOf(h.updates.of(s.ID()), NoticeBlocked), "\n")
				if res.Stop != StopRefusal || len(prov.requests()) != 1 || !strings.Contains(ns, "a PostToolUse hook stopped the turn: post-check: a FIXME was written") {
					t.Fatalf("Prompt = %+v, %d requests, notices %q", res, len(prov.requests()), ns)
				}
				return
			}
			if res.Stop != StopEndTurn || len(prov.requests()) != 2 {
				t.Fatalf("Prompt = %+v, %d requests", res, len(prov.requests()))
			}
			var got string
			for _, m := range prov.requests()[1].Body.Messages {
				if m.Role == extproto.RoleTool && m.ToolCallID == "c1" {
					got = m.Content
				}
			}
			if !strings.Contains(got, `<hook-context event="PostToolUse">`+"\n"+tc.model) {
				t.Fatalf("tool result the model got: %q", got)
			}
		})
	}
}

// A PreToolUse hook's updatedInput changes the call, which still needs
// the user's approval although the hook answered "allow".
func TestPreToolUseUpdatedInputStillNeedsApproval(t *testing.T) {
	t.Parallel()
	skipWithoutSh(t)
	r := loadHooks(t, nil, hookFixture(t, "npm-to-pnpm"))
	prov := newScripted(calls(call("c1", "run_command", map[string]any{"command": []string{"npm", "run", "test"}})), answer("done"))
	h := newHarness(t, prov, withHooks(r), withApproval(ApproveAsk))
	h.editor.answers = func(req PermissionRequest) PermissionOutcome {
		if strings.Contains(req.Args, "pnpm") {
			return PermissionDeny
		}
		return PermissionAllow
	}
	s := h.session()
	if res, err := s.Prompt(ctx(t), "go"); err != nil || res.Stop != StopEndTurn {
		t.Fatalf("Prompt = %+v, %v", res, err)
	}
	qs := h.editor.questions()
	if len(qs) != 2 || qs[1].Args != `{"command":["pnpm","run","test"]}` {
		t.Fatalf("questions %+v", qs)
	}
	var got string
	for _, m := range prov.requests()[1].Body.Messages {
		if m.Role == extproto.RoleTool && m.ToolCallID == "c1" {
			got = m.Content
		}
	}
	if !strings.HasPrefix(got, "permission denied") {
		t.Fatalf("tool result %q", got)
	}
	if ns := strings.Join(noticesOf(h.updates.of(s.ID()), NoticeWarning), "\n"); !strings.Contains(ns, "npm-to-pnpm: running pnpm run test") {
		t.Errorf("notices %q", ns)
	}
}
