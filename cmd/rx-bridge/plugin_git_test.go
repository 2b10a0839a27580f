package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rx-bridge/rx-bridge/internal/manifest"
)

// gitFixture is a bare repository holding testdata/claude-directory (a
// marketplace with plugins under plugins/), and the work tree that pushes
// to it.
type gitFixture struct {
	t          *testing.T
	work, bare string
	// parent is the folder holding the bare repository (the HTTP root).
	parent string
}

func requireGit(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the git source tests need the git program")
	}
	return p
}

// git runs git in dir with a config of its own (no user or system
// configuration) and fails the test on an error.
func (g *gitFixture) git(dir string, args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=rx", "-c", "user.email=rx@example.com", "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func newGitFixture(t *testing.T) *gitFixture {
	t.Helper()
	requireGit(t)
	base := t.TempDir()
	g := &gitFixture{t: t, work: filepath.Join(base, "work"), parent: filepath.Join(base, "srv")}
	g.bare = filepath.Join(g.parent, "repo.git")
	if err := os.CopyFS(g.work, os.DirFS(directoryFixture(t))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(g.parent, 0o755); err != nil {
		t.Fatal(err)
	}
	g.git(g.work, "init", "-q", "-b", "main")
	g.commit("first")
	g.git(g.parent, "init", "-q", "--bare", "repo.git")
	g.git(g.work, "remote", "add", "origin", g.bare)
	g.git(g.work, "push", "-q", "origin", "main")
	return g
}

// commit commits the work tree and returns the commit.
func (g *gitFixture) commit(msg string) string {
	g.git(g.work, "add", "-A")
	g.git(g.work, "commit", "-q", "-m", msg)
	return g.git(g.work, "rev-parse", "HEAD")
}

func (g *gitFixture) head() string { return g.git(g.work, "rev-parse", "HEAD") }

// fileURL is the bare repository as a file:// URL.
func (g *gitFixture) fileURL() string {
	p := filepath.ToSlash(g.bare)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/... on Windows
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// serve serves the bare repository's folder with git http-backend, as CGI
// through net/http/cgi, on 127.0.0.1; it returns the server's URL.
func (g *gitFixture) serve() string {
	g.t.Helper()
	execPath := g.git(g.work, "--exec-path")
	backend := filepath.Join(execPath, "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		if _, err := os.Stat(backend + ".exe"); err != nil {
			g.t.Skipf("git http-backend is not installed in %s", execPath)
		}
		backend += ".exe"
	}
	srv := httptest.NewServer(&cgi.Handler{
		Path:   backend,
		Stderr: io.Discard, // "Not a git repository" for the missing one
		Env:    []string{"GIT_PROJECT_ROOT=" + g.parent, "GIT_HTTP_EXPORT_ALL=1", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull},
	})
	g.t.Cleanup(srv.Close)
	return srv.URL
}

// closedPort is a 127.0.0.1 address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func wantContains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// oneLineError checks stderr is the fetch notice plus one error line.
func oneLineError(t *testing.T, what, stderr string, want string) {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if !strings.HasPrefix(l, "Fetching ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("%s: want one line with %q, got:\n%s", what, want, stderr)
	}
}

func (e *pluginEnv) record(name string) manifest.Record {
	e.t.Helper()
	h, err := manifest.LoadHome(e.home)
	if err != nil {
		e.t.Fatal(err)
	}
	r, ok := h.Record(name)
	if !ok {
		e.t.Fatalf("no record %q", name)
	}
	return r
}

// TestPluginInstallFromGitRepository: a plugin is installed from a local
// bare repository, by path and by file:// URL, with the folder install's
// preview; the record keeps the normalised source and the commit, list
// and show display them, and the copy has no .git (issue 27 item 16).
func TestPluginInstallFromGitRepository(t *testing.T) {
	t.Parallel()
	g := newGitFixture(t)
	e := newPluginEnv(t)
	commit := g.head()

	// The repository's root is a marketplace, no plugin: the error names
	// the source, not the temporary checkout.
	_, stderr := e.mustRun(1, "install", "--dry-run", g.bare)
	oneLineError(t, "install of the root", stderr, "found in "+g.bare+" (commit "+commit[:12]+")")
	if strings.Contains(stderr, "rx-bridge-git-") {
		t.Errorf("the error names the temporary checkout: %s", stderr)
	}

	src := g.fileURL() + "#main:plugins/bar"
	out, _ := e.mustRun(1, "install", src)
	wantContains(t, "preview", out,
		`Install plugin "bar" 1.0.0 from `+src+"\n",
		"  commit: "+commit+" (main)\n",
		"  folder: plugins/bar of the repository\n",
		"programs: FULL TRUST\n",
		"Nothing was written.",
	)
	out, _ = e.mustRun(0, "install", "--yes", src)
	wantContains(t, "install", out, `Installed plugin "bar" 1.0.0 at `, "It came from "+src+" at commit "+commit[:12]+"; rx-bridge plugin update bar fetches it again.\n")
	r := e.record("bar")
	if r.Source != src || r.Commit != commit {
		t.Errorf("record source %q commit %q, want %q %q", r.Source, r.Commit, src, commit)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), ".git")); err == nil {
		t.Errorf("the installed copy has a .git")
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "hooks", "check.py")); err != nil {
		t.Errorf("the installed copy lacks hooks/check.py: %v", err)
	}
	out, _ = e.mustRun(0, "show", "bar")
	wantContains(t, "show", out, "  source: "+src+"\n", "  commit: "+commit+" (rx-bridge plugin update bar fetches it again)\n")
	out, _ = e.mustRun(0, "list")
	wantContains(t, "list", out, "bar is from "+src+" at commit "+commit[:12]+"\n")
	out, _ = e.mustRun(0, "list", "--json")
	var lj listJSON
	if err := json.Unmarshal([]byte(out), &lj); err != nil || len(lj.Plugins) != 1 || lj.Plugins[0].Commit != commit || lj.Plugins[0].Source != src {
		t.Errorf("list --json: %v\n%s", err, out)
	}

	// A bare repository's path, default branch, a plugin read from its
	// layout.
	out, _ = e.mustRun(0, "install", "--yes", g.bare+"#:plugins/baz")
	wantContains(t, "install baz", out, `Installed plugin "baz"`)
	if r := e.record("baz"); r.Source != g.bare+"#:plugins/baz" || r.Commit != commit {
		t.Errorf("baz: record source %q commit %q", r.Source, r.Commit)
	}
	// A git source is copied, never linked.
	_, stderr = e.mustRun(1, "install", "--yes", "--link", "--replace", src)
	wantContains(t, "--link", stderr, "is a git source: it is fetched and copied, so it cannot be linked (drop --link)")
}

// TestPluginGitOverHTTP: the same over git http-backend on 127.0.0.1: a
// /tree/<ref>/<folder> URL (a ref with a slash resolved against the
// repository's refs), then update after a new commit is pushed: the
// preview names the old and new commit, --yes replaces the copy, and a
// second update says it is up to date. A folder-installed plugin has no
// source to fetch.
func TestPluginGitOverHTTP(t *testing.T) {
	t.Parallel()
	g := newGitFixture(t)
	base := g.serve()
	e := newPluginEnv(t)
	first := g.head()
	g.git(g.work, "branch", "release/2")
	g.git(g.work, "push", "-q", "origin", "release/2")

	tree := base + "/repo.git/tree/main/plugins/bar"
	out, _ := e.mustRun(0, "install", "--dry-run", tree)
	wantContains(t, "dry run", out, `Install plugin "bar" 1.0.0 from `+base+"/repo.git#main:plugins/bar\n", "  commit: "+first+" (main)\n", "programs: FULL TRUST\n", "Dry run: nothing was written.")
	e.mustRun(0, "install", "--yes", tree)
	out, _ = e.mustRun(0, "install", "--yes", base+"/repo.git/tree/release/2/plugins/baz")
	wantContains(t, "install baz", out, "It came from "+base+"/repo.git#release/2:plugins/baz at commit "+first[:12])

	// Nothing new: up to date.
	out, _ = e.mustRun(0, "update", "bar")
	wantContains(t, "update", out, `Plugin "bar" is up to date (commit `+first[:12])

	// A new commit on main.
	cmd := filepath.Join(g.work, "plugins", "bar", "commands", "bye.md")
	if err := os.WriteFile(cmd, []byte("Say goodbye.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	second := g.commit("second")
	g.git(g.work, "push", "-q", "origin", "main")
	out, _ = e.mustRun(1, "update")
	wantContains(t, "update preview", out,
		`Replace plugin "bar" 1.0.0 from `+base+"/repo.git#main:plugins/bar\n",
		"  commit: "+first[:12]+" -> "+second+" (main)\n",
		"programs: FULL TRUST\n",
		`Plugin "baz" is up to date`,
		"Nothing was written. To update, run the same command with --yes",
	)
	if r := e.record("bar"); r.Commit != first {
		t.Errorf("the preview wrote: commit %s", r.Commit)
	}
	out, _ = e.mustRun(0, "update", "--yes")
	wantContains(t, "update --yes", out, `Updated plugin "bar" 1.0.0 to commit `+second[:12])
	if r := e.record("bar"); r.Commit != second {
		t.Errorf("after update: commit %s, want %s", r.Commit, second)
	}
	if _, err := os.Stat(filepath.Join(e.home, "plugins", "bar", "commands", "bye.md")); err != nil {
		t.Errorf("the update's file is missing: %v", err)
	}
	out, _ = e.mustRun(0, "update", "bar")
	wantContains(t, "second update", out, `Plugin "bar" is up to date (commit `+second[:12])

	// A plugin from a folder has nothing to fetch.
	e.mustRun(0, "install", "--yes", "--name", "local", directoryFixture(t, "plugins", "bar"))
	_, stderr := e.mustRun(1, "update", "local")
	oneLineError(t, "update of a folder plugin", stderr, `plugin "local" was installed from the folder `)
	out, _ = e.mustRun(0, "update", "--dry-run")
	wantContains(t, "update of all", out, `Skipped plugin "local": installed from a folder, not a git source.`)
}

// TestPluginGitErrors: each failure is one line naming what was wrong:
// an unreachable host (a closed port), no repository, no such ref, no
// such folder; a password in the URL is never shown or recorded.
func TestPluginGitErrors(t *testing.T) {
	t.Parallel()
	g := newGitFixture(t)
	base := g.serve()
	e := newPluginEnv(t)
	closed := closedPort(t)
	for _, tc := range []struct{ src, want string }{
		{"http://" + closed + "/repo.git", "cannot reach 127.0.0.1 to fetch http://" + closed + "/repo.git: "},
		{"http://someone:s3cr3tT0ken@" + closed + "/repo.git", "cannot reach 127.0.0.1 to fetch http://[redacted]@" + closed + "/repo.git: "},
		{base + "/nothing.git", "no git repository at " + base + "/nothing.git"},
		{filepath.Join(g.parent, "nothing.git"), "no git repository at " + filepath.Join(g.parent, "nothing.git")},
		{base + "/repo.git/tree/nope/plugins/bar", "has no branch or tag nope"},
		{g.fileURL() + "#nope:plugins/bar", g.fileURL() + " has no branch or tag nope"},
		{base + "/repo.git/tree/main/plugins/nope", base + "/repo.git has no folder plugins/nope at main (commit "},
		{"https://github.com/owner", "want https://github.com/<owner>/<repo>"},
	} {
		_, stderr := e.mustRun(1, "install", "--yes", tc.src)
		oneLineError(t, tc.src, stderr, tc.want)
		if strings.Contains(stderr, "s3cr3tT0ken") {
			t.Errorf("%s: the password is shown: %s", tc.src, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, manifest.RecordsFile)); err == nil {
		t.Errorf("a failed install wrote records")
	}
}

// TestPluginGitMissing: without git on PATH, a git source gets one line
// saying to install git. Not parallel: it empties PATH.
func TestPluginGitMissing(t *testing.T) {
	t.Setenv("PATH", "")
	e := newPluginEnv(t)
	_, stderr := e.mustRun(1, "install", "--yes", "git:github.com/owner/repo")
	oneLineError(t, "no git", stderr, "needs the git program, which was not found on PATH; install git")
}

// TestPluginMarketplaceFromGit: `plugin marketplace add` takes a git
// source: the marketplace is fetched and copied into the home, its
// relative plugins install from the copy, adding it again updates it; a
// marketplace entry whose source is a git repository installs through
// the same fetch.
func TestPluginMarketplaceFromGit(t *testing.T) {
	t.Parallel()
	g := newGitFixture(t)
	base := g.serve()
	e := newPluginEnv(t)
	commit := g.head()
	out, _ := e.mustRun(0, "marketplace", "add", base+"/repo.git")
	copyDir := filepath.Join(e.home, "marketplaces", "example-directory")
	wantContains(t, "marketplace add", out,
		"Fetched "+base+"/repo.git at commit "+commit[:12]+".\n",
		`Added marketplace "example-directory" from `+base+"/repo.git (copied to "+copyDir+"): 4 plugins.\n",
		"      https://github.com/example/qux.git (git)\n",
	)
	out, _ = e.mustRun(0, "marketplace", "list")
	wantContains(t, "marketplace list", out, "example-directory  "+base+"/repo.git (commit "+commit[:12]+"; marketplace add it again to update)\n")
	out, _ = e.mustRun(0, "install", "--yes", "baz@example-directory")
	wantContains(t, "install baz@", out, `Installed plugin "baz" 0.3.0`)

	// Adding it again fetches the new commit.
	g.git(g.work, "commit", "-q", "--allow-empty", "-m", "more")
	g.git(g.work, "push", "-q", "origin", "main")
	out, _ = e.mustRun(0, "marketplace", "add", base+"/repo.git")
	wantContains(t, "marketplace add again", out, `Updated marketplace "example-directory"`, "at commit "+g.head()[:12])

	// A marketplace whose entry lives in a git repository.
	mk := e.plugin("market", map[string]string{
		".claude-plugin/marketplace.json": `{"name": "remote-market", "plugins": [
			{"name": "far-bar", "source": {"source": "url", "url": "` + g.fileURL() + `", "path": "plugins/bar", "ref": "main"}},
			{"name": "far-baz", "source": {"source": "git-subdir", "url": "` + base + `/repo.git", "path": "./plugins/baz"}}
		]}`,
	})
	e.mustRun(0, "marketplace", "add", mk)
	out, _ = e.mustRun(0, "install", "--yes", "far-bar@remote-market")
	wantContains(t, "install far-bar@", out, "  marketplace: far-bar@remote-market\n", "programs: FULL TRUST\n", `Installed plugin "bar" 1.0.0`)
	if r := e.record("bar"); r.Source != g.fileURL()+"#main:plugins/bar" || r.Commit != g.head() {
		t.Errorf("far-bar: record source %q commit %q", r.Source, r.Commit)
	}
	out, _ = e.mustRun(0, "install", "--yes", "--replace", "far-baz@remote-market")
	wantContains(t, "install far-baz@", out, "  manifest: no manifest file: read from the marketplace entry far-baz@remote-market\n", `Installed plugin "far-baz"`, "It came from "+base+"/repo.git#:plugins/baz")

	// Removing a git marketplace deletes its copy.
	e.mustRun(0, "marketplace", "remove", "example-directory")
	if _, err := os.Stat(copyDir); err == nil {
		t.Errorf("the marketplace's copy %s is still there", copyDir)
	}
}
