package hookrun

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// The tests of this file run the fixture packages of testdata/, written
// in the shape of published Claude Code plugins, against Claude Code's
// own contract for Claude-format parts (PLUGIN_CONTENTS §12).

// needPosixShell skips a test whose fixture is a shell script when no
// POSIX shell runs hooks here (Windows without Git Bash).
func needPosixShell(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		if _, ok := hostPlatform().gitBash(); !ok {
			t.Skip("no Git Bash: the fixture's hooks are POSIX shell scripts")
		}
		return
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
}

// installFixture copies testdata/<name> to <parent>/<dir> and loads it as
// the installed package name.
func installFixture(t *testing.T, name, parent, dir string) Package {
	t.Helper()
	root := filepath.Join(parent, dir)
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(root, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(root)
	if err != nil {
		t.Fatal(err)
	}
	return Package{Name: name, Root: root, Manifest: m}
}

// guardRule is a guard.*.local.md rule file of the guard fixture.
func guardRule(pattern, action, message string) string {
	return "---\npattern: " + pattern + "\naction: " + action + "\n---\n" + message + "\n"
}

func bashCall(cmd string) Payload {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return Payload{SessionID: "s1", ToolName: "bash", ToolArgs: b}
}

// TestGuardReadsProjectRules: the guard finds its rules in the project
// because its hook runs in the project directory, not the plugin root.
func TestGuardReadsProjectRules(t *testing.T) {
	t.Parallel()
	needPosixShell(t)
	tests := []struct {
		name, rule, cmd string
		block           bool
	}{
		{"block rule matches", guardRule("rm -rf", "block", "Recursive deletes are blocked here."), "rm -rf build", true},
		{"block rule does not match", guardRule("rm -rf", "block", "x"), "ls -la", false},
		{"warn rule", guardRule("git push", "warn", "Pushing? Check the branch."), "git push", false},
		{"no rule", "", "rm -rf build", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pkg := installFixture(t, "guard", t.TempDir(), "guard")
			ws := t.TempDir()
			if tc.rule != "" {
				writeTree(t, ws, map[string]string{".claude/guard.rule.local.md": tc.rule})
			}
			r := load(t, Sources{Workspace: ws, Packages: []Package{pkg}})
			block, notices := r.PreToolUse(context.Background(), bashCall(tc.cmd))
			if (block != "") != tc.block {
				t.Fatalf("block %q (want blocked=%v), notices %q", block, tc.block, notices)
			}
			if tc.block && block != "Recursive deletes are blocked here." {
				t.Fatalf("block reason %q", block)
			}
		})
	}
}
