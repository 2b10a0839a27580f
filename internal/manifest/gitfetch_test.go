package manifest

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFetchGitCancelled: a cancelled fetch stops git and says so in one
// line.
func TestFetchGitCancelled(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: the fetch tests need the git program")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	repo := filepath.Join(t.TempDir(), "r.git")
	f, err := FetchGit(ctx, GitSource{URL: repo})
	if err == nil {
		f.Close()
		t.Fatal("a cancelled fetch succeeded")
	}
	if want := "fetching " + repo + " was cancelled"; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}

// TestGitGist: git's multi-line stderr becomes its last fatal line, the
// URL's password masked.
func TestGitGist(t *testing.T) {
	t.Parallel()
	stderr := "Cloning into 'x'...\nwarning: something\nfatal: unable to access 'https://me:hunter2@host.example/r.git/': Could not resolve host: host.example\n"
	if got, want := gitGist(stderr), "Could not resolve host: host.example"; got != want {
		t.Errorf("gist = %q, want %q", got, want)
	}
	got := gitGist("fatal: repository 'https://me:hunter2@host.example/r.git/' not found\n")
	if strings.Contains(got, "hunter2") || strings.Contains(got, "\n") {
		t.Errorf("gist = %q", got)
	}
	env := gitEnv([]string{"GIT_TERMINAL_PROMPT=1", "GIT_ASKPASS=/bin/ask", "HOME=/h"})
	joined := strings.Join(env, "\n")
	for _, w := range []string{"GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=\n", "HOME=/h"} {
		if !strings.Contains(joined+"\n", w) {
			t.Errorf("env lacks %q: %q", w, env)
		}
	}
	if strings.Contains(joined, "GIT_TERMINAL_PROMPT=1") || strings.Contains(joined, "/bin/ask") {
		t.Errorf("env keeps a prompt: %q", env)
	}
}
