package tools

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// TestSearchIncludeGlobs: the include globs models send, as ripgrep's -g
// takes them. Each once matched nothing (path.Match on the base name).
func TestSearchIncludeGlobs(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{
		"main.go":              "hit\n",
		"src/a.ts":             "hit\n",
		"src/b.tsx":            "hit\n",
		"src/deep/c.ts":        "hit\n",
		"src/deep/c.go":        "hit\n",
		"test/unit/x.ts":       "hit\n",
		"web/test/y.ts":        "hit\n",
		"docs/read me.md":      "hit\n",
		"docs/notes.txt":       "hit\n",
		"pkg/[special].go":     "hit\n",
		"src/Makefile":         "hit\n",
		"vendor/lib/v.js":      "hit\n",
		"vendor/lib/v.test.js": "hit\n",
	})
	env := &Env{Workspace: ws}
	for _, tc := range []struct {
		include, path string
		want          []string
	}{
		{"*.go", "", []string{"main.go", "pkg/[special].go", "src/deep/c.go"}},
		{"**/*.ts", "", []string{"src/a.ts", "src/deep/c.ts", "test/unit/x.ts", "web/test/y.ts"}},
		{"*.{ts,tsx}", "", []string{"src/a.ts", "src/b.tsx", "src/deep/c.ts", "test/unit/x.ts", "web/test/y.ts"}},
		{"src/*.ts", "", []string{"src/a.ts"}},
		{"src/**/*.ts", "", []string{"src/a.ts", "src/deep/c.ts"}},
		{"./src/*.ts", "", []string{"src/a.ts"}},
		{"/src/*.ts", "", []string{"src/a.ts"}},
		{"**/test/*.ts", "", []string{"web/test/y.ts"}},
		{"test/**", "", []string{"test/unit/x.ts"}},
		{"*.test.js", "", []string{"vendor/lib/v.test.js"}},
		{"Makefile", "", []string{"src/Makefile"}},
		{"*.md", "", []string{"docs/read me.md"}},
		{"read me.md", "", []string{"docs/read me.md"}},
		{`\[special\].go`, "", []string{"pkg/[special].go"}},
		{"[a-b].ts", "", []string{"src/a.ts"}},
		{"?.ts", "", []string{"src/a.ts", "src/deep/c.ts", "test/unit/x.ts", "web/test/y.ts"}},
		// A path glob is also matched from the searched directory.
		{"deep/*.ts", "src", []string{"src/deep/c.ts"}},
		{"*.ts", "src/deep", []string{"src/deep/c.ts"}},
		{"*.py", "", nil},
	} {
		t.Run(tc.include+" in "+tc.path, func(t *testing.T) {
			t.Parallel()
			args := map[string]any{"pattern": "hit", "include": tc.include}
			if tc.path != "" {
				args["path"] = tc.path
			}
			out, err := run(t, env, "search_text", args)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			if out != "[no matches]" {
				for _, l := range strings.Split(out, "\n") {
					got = append(got, strings.TrimSuffix(l, ":1: hit"))
				}
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("include %q: got %q, want %q", tc.include, got, tc.want)
			}
		})
	}
	for _, bad := range []string{"[", "{a,b", "src/[z-a"} {
		if _, err := run(t, env, "search_text", map[string]any{"pattern": "x", "include": bad}); err == nil || !strings.Contains(err.Error(), "invalid include glob") {
			t.Errorf("include %q: err = %v", bad, err)
		}
	}
}

// TestGitignoreMatchesGit: the walk's view of a tree (which files it
// visits) is git's own (`git ls-files --others --exclude-standard`), over a
// table of patterns where hand-written matchers go wrong.
func TestGitignoreMatchesGit(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for this test (it is the reference): %v", err)
	}
	files := []string{
		"a.log", "keep.log", "b/a.log", "b/keep.log", "b/c/d.log",
		"build/out.txt", "build/keep.txt", "src/build/x.txt",
		"#hash.txt", "!bang.txt", "trail.txt", "trail .txt", "sp ace.txt",
		"doc/x.md", "doc/sub/y.md", "x/doc/z.md",
		"foo/bar/baz.txt", "foo/baz.txt", "a/b/c/foo.txt", "abc", "a?c", "a[b]c",
		"logs/debug/2.log", "logs/keep/3.log", "node_modules/p/index.js", "deep/node_modules/q.js",
		"dir.txt/inner", "Star*.txt",
	}
	for _, tc := range []struct{ name, rules string }{
		{"negated file", "*.log\n!keep.log\n"},
		{"negated child under excluded parent", "build/\n!build/keep.txt\n"},
		{"negated child under excluded parent contents", "build/*\n!build/keep.txt\n"},
		{"escaped hash and bang", "\\#hash.txt\n\\!bang.txt\n"},
		{"comment and blank", "# a.log\n\n"},
		{"trailing spaces", "trail.txt   \n"},
		{"escaped trailing space", "trail\\ .txt\n"},
		{"inner space", "sp ace.txt\n"},
		{"leading doublestar", "**/baz.txt\n"},
		{"middle doublestar", "a/**/foo.txt\n"},
		{"trailing doublestar", "logs/**\n!logs/keep/\n"},
		{"anchored", "/doc/*.md\n"},
		{"middle slash anchors", "doc/*.md\n"},
		{"dir only", "doc/\n"},
		{"dir only nested", "node_modules/\n"},
		{"dir only does not match file", "abc/\n"},
		{"question and class", "a?c\n"},
		{"class", "a[b]c\n"},
		{"escaped star", "Star\\*.txt\n"},
		{"dir with dot", "*.txt\n"},
		{"deep star", "b/**\n!b/keep.log\n"},
		{"re-include dir then exclude file", "logs/\n!logs/\nlogs/debug/*.log\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := map[string]string{".gitignore": tc.rules}
			for _, f := range files {
				m[f] = "x\n"
			}
			ws := tree(t, m)
			git := exec.Command("git", "init", "-q", ws.Root)
			if out, err := git.CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			ls := exec.Command("git", "-c", "core.quotePath=false", "ls-files", "--others", "--exclude-standard")
			ls.Dir = ws.Root
			ls.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
			out, err := ls.Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			want := strings.Fields(strings.ReplaceAll(string(out), " ", "\x00"))
			for i := range want {
				want[i] = strings.ReplaceAll(want[i], "\x00", " ")
			}
			sort.Strings(want)
			var got []string
			err = ws.walk(context.Background(), ws.Root, true, func(rel string, d fs.DirEntry) error {
				if d.Type().IsRegular() {
					got = append(got, rel)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf(".gitignore %q\nwalk visits: %q\ngit keeps:   %q", tc.rules, got, want)
			}
		})
	}
}
