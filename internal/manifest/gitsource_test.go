package manifest

import (
	"strings"
	"testing"
)

// TestParseGitSource: each accepted form, what it clones, and the
// normalised form the record keeps; folders are no git sources, and a
// malformed git form is an error naming it.
func TestParseGitSource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in                  string
		url, ref, sub, tree string
		str                 string // String(), when not url
		notGit              bool
		err                 string
	}{
		{in: "git:github.com/owner/repo", url: "https://github.com/owner/repo.git"},
		{in: "git:github.com/owner/repo.git", url: "https://github.com/owner/repo.git"},
		{in: "git:gitlab.example.com/group/sub/repo", url: "https://gitlab.example.com/group/sub/repo"},
		{in: "git:https://host.example/r.git", url: "https://host.example/r.git"},
		{in: "git:file:///srv/r.git", url: "file:///srv/r.git"},
		{in: "https://github.com/owner/repo", url: "https://github.com/owner/repo.git"},
		{in: "https://github.com/owner/repo/", url: "https://github.com/owner/repo.git"},
		{in: "http://github.com/owner/repo.git", url: "https://github.com/owner/repo.git"},
		{in: "http://127.0.0.1:8080/repo.git", url: "http://127.0.0.1:8080/repo.git"},
		{in: "https://host.example/a/b", url: "https://host.example/a/b"},
		{in: "https://github.com/owner/repo/tree/main/plugins/x", url: "https://github.com/owner/repo.git", tree: "main/plugins/x", str: "https://github.com/owner/repo/tree/main/plugins/x"},
		{in: "https://github.com/owner/repo/tree/feature/y", url: "https://github.com/owner/repo.git", tree: "feature/y", str: "https://github.com/owner/repo/tree/feature/y"},
		{in: "https://gitlab.com/g/r/-/tree/v1/p", url: "https://gitlab.com/g/r", tree: "v1/p", str: "https://gitlab.com/g/r/tree/v1/p"},
		{in: "http://127.0.0.1:9/r.git/tree/main/sub", url: "http://127.0.0.1:9/r.git", tree: "main/sub"},
		{in: "file:///srv/r.git/tree/main/sub", url: "file:///srv/r.git", tree: "main/sub"},
		{in: "file:///srv/tree/x/r.git", url: "file:///srv/tree/x/r.git"},
		{in: "file:///srv/r.git#v1.2", url: "file:///srv/r.git", ref: "v1.2", str: "file:///srv/r.git#v1.2"},
		{in: "file:///srv/r.git#release/2:plugins/x/", url: "file:///srv/r.git", ref: "release/2", sub: "plugins/x", str: "file:///srv/r.git#release/2:plugins/x"},
		{in: "file:///srv/r.git#:plugins/x", url: "file:///srv/r.git", sub: "plugins/x", str: "file:///srv/r.git#:plugins/x"},
		{in: "/srv/repos/r.git", url: "/srv/repos/r.git"},
		{in: "/srv/repos/r.git/", url: "/srv/repos/r.git"},
		{in: `C:\repos\r.git`, url: `C:\repos\r.git`},
		{in: "git@github.com:owner/repo.git", url: "git@github.com:owner/repo.git"},
		{in: "ssh://git@host.example/r.git", url: "ssh://git@host.example/r.git"},
		{in: "https://user:s3cret@host.example/r.git", url: "https://user:s3cret@host.example/r.git", str: "https://user:xxxxx@host.example/r.git"},
		{in: "./plugins/x", notGit: true},
		{in: "/home/me/plugin", notGit: true},
		{in: "hello", notGit: true},
		{in: "bar@example-directory", notGit: true},
		{in: `C:\src\plugin`, notGit: true},
		{in: "git:", err: "want git:<host>/<owner>/<repo>"},
		{in: "git:github.com", err: "want git:<host>/<owner>/<repo>"},
		{in: "https://github.com/owner", err: "want https://github.com/<owner>/<repo>"},
		{in: "https:///r.git", err: "no host"},
		{in: "https://host.example", err: "no repository path"},
		{in: "ftp://host.example/r.git", err: `unsupported scheme "ftp"`},
		{in: "https://host.example/r.git?x=1", err: "a query"},
		{in: "https://github.com/o/r/tree/main/../x", err: "leaves the repository"},
		{in: "file:///r.git#main:../x", err: "leaves the repository"},
		{in: "file:///r.git#--upload-pack=x", err: "invalid ref"},
		{in: "file:///r.git#a..b", err: "invalid ref"},
		{in: "https://github.com/o/r/tree/main/x#v1", err: "not both"},
		{in: "https://host.example/r.git\nx", err: "control character"},
	} {
		g, ok, err := ParseGitSource(tc.in)
		switch {
		case tc.notGit:
			if ok || err != nil {
				t.Errorf("%q: ok %v, err %v; want a folder", tc.in, ok, err)
			}
			continue
		case tc.err != "":
			if !ok || err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: ok %v, err %v; want %q", tc.in, ok, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("%q: multi-line error %q", tc.in, err)
			}
			continue
		case !ok || err != nil:
			t.Errorf("%q: ok %v, err %v", tc.in, ok, err)
			continue
		}
		want := GitSource{URL: tc.url, Ref: tc.ref, Subdir: tc.sub, TreePath: tc.tree}
		if g != want {
			t.Errorf("%q: %+v, want %+v", tc.in, g, want)
		}
		str := tc.str
		if str == "" {
			str = tc.url
			if tc.tree != "" {
				str = tc.url + "/tree/" + tc.tree
			} else if tc.ref != "" || tc.sub != "" {
				t.Fatalf("%q: give str", tc.in)
			}
		}
		if g.String() != str {
			t.Errorf("%q: String() = %q, want %q", tc.in, g.String(), str)
		}
		// The normalised form reads back to the same source.
		if strings.Contains(str, "xxxxx") {
			continue
		}
		back, ok, err := ParseGitSource(g.String())
		if !ok || err != nil || back != g {
			t.Errorf("%q: String() %q reads back as %+v, %v, %v", tc.in, g.String(), back, ok, err)
		}
	}
}

// TestResolveTree: the longest leading part of a /tree/ path that is a
// branch or tag is the ref; else a hex first segment is a commit.
func TestResolveTree(t *testing.T) {
	t.Parallel()
	refs := map[string]bool{"main": true, "release": true, "release/2": true, "v1.0": true}
	for _, tc := range []struct{ tree, ref, sub, err string }{
		{tree: "main", ref: "main"},
		{tree: "main/plugins/x", ref: "main", sub: "plugins/x"},
		{tree: "release/2/plugins/x", ref: "release/2", sub: "plugins/x"},
		{tree: "release/3/x", ref: "release", sub: "3/x"},
		{tree: "v1.0/p", ref: "v1.0", sub: "p"},
		{tree: "0123abcd/p", ref: "0123abcd", sub: "p"},
		{tree: "nope/p", err: "file:///r.git has no branch or tag nope"},
	} {
		g, err := GitSource{URL: "file:///r.git", TreePath: tc.tree}.ResolveTree(refs)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: %v, want %q", tc.tree, err, tc.err)
			}
			continue
		}
		if err != nil || g.Ref != tc.ref || g.Subdir != tc.sub || g.TreePath != "" {
			t.Errorf("%s: %+v, %v; want ref %q subdir %q", tc.tree, g, err, tc.ref, tc.sub)
		}
	}
}

// FuzzParseGitSource: the parser reads what users type (and what
// marketplaces list). It must never panic; what it accepts must have a
// clone URL that git cannot take for an option, a ref and folder that stay
// inside the repository, and a normalised form without control
// characters that parses back to the same source.
func FuzzParseGitSource(f *testing.F) {
	for _, s := range []string{
		"git:github.com/o/r", "https://github.com/o/r/tree/main/a/b", "https://gitlab.com/g/r/-/tree/v1/p",
		"file:///srv/r.git#main:x", "/srv/r.git", "git@host:o/r.git", "https://u:p@h/r.git", "./x", "git:",
		"https://h/r.git#-x", "file:///a/tree/b.git/tree/c", "git:file://", "http://[::1]:80/r.git", "https://h/%zz.git",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, ok, err := ParseGitSource(s)
		if !ok || err != nil {
			if !ok && err != nil {
				t.Fatalf("%q: an error for a folder: %v", s, err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("%q: multi-line error %q", s, err)
			}
			return
		}
		if g.URL == "" || strings.HasPrefix(g.URL, "-") {
			t.Fatalf("%q: clone URL %q", s, g.URL)
		}
		if checkRef(g.Ref) != nil || checkRelPath(g.Subdir) != nil || checkRelPath(g.TreePath) != nil {
			t.Fatalf("%q: ref %q, subdir %q, tree %q", s, g.Ref, g.Subdir, g.TreePath)
		}
		str := g.String()
		if strings.ContainsAny(str, "\x00\n\r") {
			t.Fatalf("%q: String() %q", s, str)
		}
		if strings.Contains(str, "xxxxx") {
			return // the password is gone: it cannot read back the same
		}
		back, ok, err := ParseGitSource(str)
		if !ok || err != nil || back != g {
			t.Fatalf("%q: String() %q reads back as %+v, %v, %v (was %+v)", s, str, back, ok, err, g)
		}
	})
}
