package manifest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// GitTimeout bounds one fetch (every git command of it together).
const GitTimeout = 5 * time.Minute

// Fetched is a git source checked out into a temporary directory.
type Fetched struct {
	// Source is the source, its /tree/ path resolved.
	Source GitSource
	// Commit is the full hash of the checked-out commit.
	Commit string
	// Dir is the plugin (or marketplace) folder: Subdir of the checkout.
	Dir string
	// tmp is the temporary directory holding the checkout.
	tmp string
}

// Close deletes the checkout.
func (f *Fetched) Close() error {
	if f == nil || f.tmp == "" {
		return nil
	}
	return removeAllWritable(f.tmp)
}

// removeAllWritable is os.RemoveAll, after making read-only files (git's
// objects) writable where that is what keeps them from being deleted
// (Windows).
func removeAllWritable(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

// Explain rewrites err, which may name the temporary checkout, to name
// the git source instead.
func (f *Fetched) Explain(err error) error {
	if f == nil || err == nil {
		return err
	}
	msg := err.Error()
	label := f.Source.String() + " (commit " + short(f.Commit) + ")"
	paths := []string{f.Dir, filepath.Join(f.tmp, "repo"), f.tmp}
	if real, err := filepath.EvalSymlinks(f.tmp); err == nil && real != f.tmp {
		paths = append(paths, filepath.Join(real, "repo"), real)
	}
	for _, p := range paths {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, label)
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// ErrNoGit is returned when the git program is not found.
var ErrNoGit = errors.New("installing from a git source needs the git program, which was not found on PATH; install git and try again")

// FetchGit checks src out with the git program into a new temporary
// directory: a shallow clone of its ref (or default branch), or, for a
// commit, a fetch of that commit (a full clone if the server refuses
// one). git never prompts: GIT_TERMINAL_PROMPT=0 and no askpass program,
// so a repository that needs credentials fails unless a credential
// helper or SSH agent supplies them. Each failure is one line naming what
// was wrong: git missing, the host unreachable, no such repository, ref
// or folder, credentials needed. The caller closes the result.
func FetchGit(ctx context.Context, src GitSource) (*Fetched, error) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrNoGit
	}
	ctx, cancel := context.WithTimeout(ctx, GitTimeout)
	defer cancel()
	g := &gitRunner{ctx: ctx, git: gitPath, src: src}
	if src.TreePath != "" {
		refs, err := g.lsRemote()
		if err != nil {
			return nil, err
		}
		if src, err = src.ResolveTree(refs); err != nil {
			return nil, err
		}
		g.src = src
	}
	tmp, err := os.MkdirTemp("", "rx-bridge-git-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary folder for the checkout: %w", err)
	}
	f := &Fetched{Source: src, tmp: tmp}
	repo := filepath.Join(tmp, "repo")
	if err := g.checkout(repo); err != nil {
		f.Close()
		return nil, err
	}
	out, err := g.run(repo, "rev-parse", "HEAD")
	if err != nil {
		f.Close()
		return nil, err
	}
	f.Commit = strings.TrimSpace(out)
	f.Dir = repo
	if src.Subdir != "" {
		dir := filepath.Join(repo, filepath.FromSlash(src.Subdir))
		realRepo, err := filepath.EvalSymlinks(repo)
		if err != nil {
			realRepo = repo
		}
		real, err := filepath.EvalSymlinks(dir)
		if err == nil && !within(realRepo, real) {
			f.Close()
			return nil, fmt.Errorf("the folder %s of %s is a symlink leading out of the repository", src.Subdir, RedactURL(src.URL))
		}
		if info, serr := os.Stat(dir); err != nil || serr != nil || !info.IsDir() {
			f.Close()
			return nil, fmt.Errorf("%s has no folder %s at %s (commit %s)", RedactURL(src.URL), src.Subdir, refLabel(src.Ref), short(f.Commit))
		}
		f.Dir = real
	}
	return f, nil
}

func refLabel(ref string) string {
	if ref == "" {
		return "its default branch"
	}
	return ref
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

type gitRunner struct {
	ctx context.Context
	git string
	src GitSource
}

// checkout clones g.src into dir.
func (g *gitRunner) checkout(dir string) error {
	url := g.src.URL
	ref := g.src.Ref
	args := []string{"clone", "--quiet", "--depth", "1", "--no-tags", "--single-branch"}
	if ref == "" {
		_, err := g.run("", append(args, "--", url, dir)...)
		return err
	}
	_, err := g.run("", append(args, "--branch", ref, "--", url, dir)...)
	if err == nil || !isHexCommit(ref) || !errors.As(err, new(noRefError)) {
		return err
	}
	// A commit: fetch just it; a server that does not serve commits by
	// hash (or a short hash) gets a full clone and a checkout.
	os.RemoveAll(dir)
	if _, err := g.run("", "init", "--quiet", dir); err != nil {
		return err
	}
	if _, err := g.run(dir, "fetch", "--quiet", "--depth", "1", "--", url, ref); err == nil {
		_, err = g.run(dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", "FETCH_HEAD")
		return err
	}
	os.RemoveAll(dir)
	if _, err := g.run("", "clone", "--quiet", "--no-checkout", "--", url, dir); err != nil {
		return err
	}
	if _, err := g.run(dir, "-c", "advice.detachedHead=false", "checkout", "--quiet", ref+"^{commit}"); err != nil {
		return fmt.Errorf("%s has no branch, tag or commit %s", RedactURL(url), ref)
	}
	return nil
}

// lsRemote lists the repository's branches and tags by short name.
func (g *gitRunner) lsRemote() (map[string]bool, error) {
	out, err := g.run("", "ls-remote", "--heads", "--tags", "--", g.src.URL)
	if err != nil {
		return nil, err
	}
	refs := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		_, name, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		name = strings.TrimSuffix(name, "^{}")
		for _, p := range []string{"refs/heads/", "refs/tags/"} {
			if n, ok := strings.CutPrefix(name, p); ok {
				refs[n] = true
			}
		}
	}
	return refs, nil
}

// noRefError is a clone that failed because the ref does not exist.
type noRefError struct{ msg string }

func (e noRefError) Error() string { return e.msg }

// run runs git and returns its stdout; a failure is one line.
func (g *gitRunner) run(dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(g.ctx, g.git, args...)
	cmd.Dir = dir
	cmd.Env = gitEnv(os.Environ())
	cmd.Stdin = nil
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if err == nil {
		return stdout.String(), nil
	}
	if ctxErr := g.ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return "", fmt.Errorf("fetching %s took longer than %v; nothing was installed", RedactURL(g.src.URL), GitTimeout)
		}
		return "", fmt.Errorf("fetching %s was cancelled", RedactURL(g.src.URL))
	}
	return "", g.explain(args[0], stderr.String(), err)
}

// gitEnv is env with every way git could ask the user for something
// turned off, and its messages in English so they can be recognised.
func gitEnv(env []string) []string {
	out := make([]string, 0, len(env)+6)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(k) {
		case "GIT_TERMINAL_PROMPT", "GIT_ASKPASS", "SSH_ASKPASS", "LC_ALL", "LANGUAGE", "GCM_INTERACTIVE", "GIT_DIR", "GIT_WORK_TREE":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "SSH_ASKPASS=", "GCM_INTERACTIVE=never", "LC_ALL=C", "LANGUAGE=C")
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		out = append(out, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	return out
}

// explain turns git's stderr into one line naming what was wrong.
func (g *gitRunner) explain(verb, stderr string, runErr error) error {
	where := RedactURL(g.src.URL)
	low := strings.ToLower(stderr)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(low, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("terminal prompts disabled", "authentication failed", "could not read username", "could not read password",
		"permission denied (publickey", "host key verification failed"):
		return fmt.Errorf("%s needs credentials, and rx-bridge does not let git prompt for them: set up a git credential helper or SSH key (or check the URL)", where)
	case has("could not resolve host", "connection refused", "failed to connect", "couldn't connect", "could not connect",
		"connection timed out", "network is unreachable", "no route to host", "operation timed out", "name or service not known",
		"could not resolve hostname", "connection reset", "ssl certificate problem", "unable to access"):
		host := g.src.Host()
		if host == "" {
			host = where
		}
		return fmt.Errorf("cannot reach %s to fetch %s: %s", host, where, gitGist(stderr))
	case has("remote branch", "couldn't find remote ref", "not found in upstream"):
		return noRefError{fmt.Sprintf("%s has no branch or tag %s", where, g.src.Ref)}
	case has("repository not found", "does not appear to be a git repository", "not found", "does not exist", "404"):
		return fmt.Errorf("no git repository at %s", where)
	}
	if gist := gitGist(stderr); gist != "" {
		return fmt.Errorf("git %s %s failed: %s", verb, where, gist)
	}
	return fmt.Errorf("git %s %s failed: %v", verb, where, runErr)
}

// gitGist is the last fatal:/error: line of git's stderr (else its last
// line), without the prefix, URL passwords masked. (The command line
// passes every error through redact too; manifest may not import it.)
func gitGist(stderr string) string {
	var last, fatal string
	for _, l := range strings.Split(stderr, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		last = l
		for _, p := range []string{"fatal:", "error:"} {
			if rest, ok := strings.CutPrefix(l, p); ok {
				fatal = strings.TrimSpace(rest)
			}
		}
	}
	if fatal == "" {
		fatal = last
	}
	// "unable to access '<url>': <why>": the URL is already named.
	if rest, ok := strings.CutPrefix(fatal, "unable to access '"); ok {
		if _, why, ok := strings.Cut(rest, "': "); ok {
			fatal = why
		}
	}
	for _, w := range strings.Fields(fatal) {
		if strings.Contains(w, "://") {
			fatal = strings.ReplaceAll(fatal, w, RedactURL(strings.Trim(w, "'\"")))
		}
	}
	return fatal
}
