package manifest

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// GitSource is where a plugin (or a marketplace) lives in a git
// repository: the repository, a branch, tag or commit (empty: the
// repository's default branch), and a folder inside it (empty: its root).
//
// The forms ParseGitSource accepts (docs/CLI.md, "Git sources"):
//
//	git:github.com/owner/repo            https://github.com/owner/repo.git
//	git:<host>/<path>                    https://<host>/<path>
//	git:<url>                            <url> (git:https://..., git:file://...)
//	https://host/owner/repo(.git)        as written (github.com gets .git)
//	https://host/owner/repo/tree/<ref>/<subdir>
//	                                     GitHub's (and GitLab's /-/tree/)
//	                                     browse URL: ref and subdir
//	file:///path/repo.git, /path/repo.git, ssh://..., git@host:path
//	<any of the above>#<ref>             that ref
//	<any of the above>#<ref>:<subdir>    that ref and folder (#:<subdir>
//	                                     for the default branch)
//
// In a /tree/ URL the ref may contain slashes, so <ref>/<subdir> is
// ambiguous until the repository's refs are known: TreePath keeps it, and
// the fetch takes the longest leading part that names a branch or tag of
// the repository (else the first segment, if it looks like a commit).
type GitSource struct {
	// URL is what git clones.
	URL string
	// Ref is the branch, tag or commit; empty is the default branch.
	Ref string
	// Subdir is a slash-separated folder inside the repository.
	Subdir string
	// TreePath is the unresolved "<ref>/<subdir>" of a /tree/ URL; Ref
	// and Subdir are empty until ResolveTree splits it.
	TreePath string
}

// String is the normalised form, which ParseGitSource reads back to the
// same source: <url>[#<ref>[:<subdir>]]. It never carries a password.
func (g GitSource) String() string {
	s := RedactURL(g.URL)
	if !looksGit(s) {
		s = "git:" + s // a local path given as git:<path>
	}
	switch {
	case g.TreePath != "":
		if strings.EqualFold(g.Host(), "github.com") {
			s = strings.TrimSuffix(s, ".git")
		}
		return s + "/tree/" + g.TreePath
	case g.Subdir != "":
		return s + "#" + g.Ref + ":" + g.Subdir
	case g.Ref != "":
		return s + "#" + g.Ref
	}
	return s
}

// Host is the repository's host, for messages ("" for a local one).
func (g GitSource) Host() string {
	if u, err := url.Parse(g.URL); err == nil && u.Host != "" {
		return u.Hostname()
	}
	if at, rest, ok := strings.Cut(g.URL, "@"); ok && !strings.Contains(at, "/") {
		if h, _, ok := strings.Cut(rest, ":"); ok {
			return h
		}
	}
	return ""
}

// RedactURL drops the password (or token) of a URL's userinfo, which must
// not be shown or recorded; anything that is no URL is returned as is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// ParseGitSource reads s as a git source. ok is false when s is none of
// the git forms (then it is a folder); err reports a git form that is
// malformed.
func ParseGitSource(s string) (g GitSource, ok bool, err error) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "\x00\n\r") {
		if looksGit(s) {
			return g, true, errors.New("git source: contains a control character")
		}
		return g, false, nil
	}
	if !looksGit(s) {
		return g, false, nil
	}
	bad := func(format string, args ...any) (GitSource, bool, error) {
		return GitSource{}, true, fmt.Errorf("git source %s: %s", RedactURL(s), fmt.Sprintf(format, args...))
	}
	if strings.HasPrefix(s, "-") {
		return bad("may not begin with - (git would read it as an option)")
	}
	body, frag, hasFrag := strings.Cut(s, "#")
	body = strings.TrimSpace(body)
	if rest, ok := strings.CutPrefix(body, "git:"); ok && !strings.HasPrefix(body, "git://") {
		switch {
		case rest == "":
			return bad("want git:<host>/<owner>/<repo>")
		case strings.HasPrefix(rest, "-"):
			return bad("may not begin with - (git would read it as an option)")
		case strings.Contains(rest, "://"), strings.HasPrefix(rest, "/"), isDriveAbs(rest):
			body = rest
		default:
			host, _, _ := strings.Cut(rest, "/")
			if host == "" || !strings.Contains(rest, "/") {
				return bad("want git:<host>/<owner>/<repo>")
			}
			body = "https://" + rest
		}
	}
	if u, err := url.Parse(body); err == nil && u.Scheme != "" && strings.Contains(body, "://") {
		u.Path = strings.TrimRight(u.Path, "/")
		switch u.Scheme {
		case "https", "http", "file", "ssh", "git":
		default:
			return bad("unsupported scheme %q (want https, http, ssh, git or file)", u.Scheme)
		}
		if u.Scheme != "file" && u.Host == "" {
			return bad("no host")
		}
		if u.RawQuery != "" || u.ForceQuery {
			return bad("a query (?...) is not part of a git source")
		}
		if repo, tree, ok := splitTree(u); ok {
			if hasFrag {
				return bad("give the ref either in /tree/ or after #, not both")
			}
			u.Path = repo
			g.TreePath = tree
			if strings.ContainsAny(tree, " \t") || strings.Contains(tree, "//") {
				return bad("a /tree/ path with spaces or empty parts: give it as <url>#<ref>:<folder>")
			}
			if err := checkRelPath(tree); err != nil {
				return bad("%v", err)
			}
		}
		if u.Path == "" || u.Path == "/" {
			return bad("no repository path")
		}
		if strings.EqualFold(u.Hostname(), "github.com") && (u.Scheme == "https" || u.Scheme == "http") {
			u.Scheme = "https"
			u.Path = strings.TrimSuffix(u.Path, ".git")
			if strings.Count(strings.Trim(u.Path, "/"), "/") != 1 {
				return bad("want https://github.com/<owner>/<repo>")
			}
			u.Path += ".git"
		}
		u.RawPath, u.Fragment, u.RawFragment = "", "", ""
		g.URL = u.String()
	} else if strings.Contains(body, "://") {
		return bad("not a URL")
	} else {
		// A local path or scp-like user@host:path.
		if t := strings.TrimRight(body, "/\\ \t"); t != "" && !strings.HasSuffix(t, ":") {
			body = t
		}
		g.URL = body
	}
	if hasFrag {
		ref, sub, _ := strings.Cut(frag, ":")
		sub = strings.Trim(sub, "/ \t")
		if err := checkRef(ref); err != nil {
			return bad("%v", err)
		}
		if err := checkRelPath(sub); err != nil {
			return bad("%v", err)
		}
		g.Ref, g.Subdir = ref, sub
	}
	for _, part := range []string{g.URL, g.Ref, g.Subdir, g.TreePath} {
		if strings.ContainsFunc(part, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return bad("contains a control character")
		}
	}
	if strings.ContainsAny(g.TreePath+g.Subdir, "#?%") {
		return bad("the folder or ref contains #, ? or %%")
	}
	return g, true, nil
}

// looksGit is the syntactic test that tells a git source from a folder.
func looksGit(s string) bool {
	for _, p := range []string{"git:", "https://", "http://", "ssh://", "git://", "file://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	body, _, _ := strings.Cut(s, "#")
	body = strings.TrimRight(strings.TrimSpace(body), "/\\ \t")
	if strings.HasSuffix(body, ".git") {
		return true
	}
	// scp-like user@host:path, as git reads it (no slash before the colon).
	if at, rest, ok := strings.Cut(body, "@"); ok && at != "" && !strings.ContainsAny(at, `/\:`) {
		h, p, ok := strings.Cut(rest, ":")
		return ok && h != "" && p != "" && !strings.ContainsAny(h, `/\`)
	}
	return false
}

// splitTree finds GitHub's /tree/ (GitLab's /-/tree/) in a browse URL.
// For file URLs the part before must end in .git, since a local path may
// well have a folder called tree.
func splitTree(u *url.URL) (repo, tree string, ok bool) {
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	for i := 1; i < len(segs)-1; i++ {
		if segs[i] != "tree" {
			continue
		}
		end := i
		if segs[i-1] == "-" {
			end = i - 1
		}
		if end == 0 || segs[end-1] == "-" {
			continue
		}
		if u.Scheme == "file" && !strings.HasSuffix(segs[end-1], ".git") {
			continue
		}
		return "/" + strings.Join(segs[:end], "/"), strings.Join(segs[i+1:], "/"), true
	}
	return "", "", false
}

// checkRef refuses what git check-ref-format would, roughly, and anything
// that git would read as an option.
func checkRef(ref string) error {
	if ref == "" {
		return nil
	}
	if strings.HasPrefix(ref, "-") || strings.Contains(ref, "..") || strings.ContainsAny(ref, " ~^:?*[\\\t") ||
		strings.HasSuffix(ref, "/") || strings.HasSuffix(ref, ".lock") || strings.Contains(ref, "@{") {
		return fmt.Errorf("invalid ref %q", ref)
	}
	return nil
}

// checkRelPath refuses a folder that would leave the repository.
func checkRelPath(p string) error {
	if p == "" {
		return nil
	}
	if strings.Contains(p, `\`) || path.IsAbs(p) {
		return fmt.Errorf("invalid folder %q", p)
	}
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if seg == ".." || seg == "." {
			return fmt.Errorf("folder %q leaves the repository", p)
		}
	}
	return nil
}

// ResolveTree splits a /tree/ path against the repository's branches and
// tags (their short names): the longest leading run of segments that is
// one is the ref, the rest the folder. When none is, a first segment of 7
// to 40 hex digits is taken for a commit.
func (g GitSource) ResolveTree(refs map[string]bool) (GitSource, error) {
	if g.TreePath == "" {
		return g, nil
	}
	segs := strings.Split(g.TreePath, "/")
	for n := len(segs); n >= 1; n-- {
		ref := strings.Join(segs[:n], "/")
		if refs[ref] {
			g.Ref, g.Subdir, g.TreePath = ref, strings.Join(segs[n:], "/"), ""
			return g, nil
		}
	}
	if isHexCommit(segs[0]) {
		g.Ref, g.Subdir, g.TreePath = segs[0], strings.Join(segs[1:], "/"), ""
		return g, nil
	}
	return g, fmt.Errorf("%s has no branch or tag %s", RedactURL(g.URL), segs[0])
}

func isHexCommit(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}
