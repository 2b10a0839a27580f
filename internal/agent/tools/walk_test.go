package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func gitTree(t *testing.T) *Workspace {
	t.Helper()
	ws := tree(t, map[string]string{
		".gitignore":        "*.log\nbuild/\n/secret.txt\n",
		".git/HEAD":         "ref: refs/heads/main\n",
		".git/info/exclude": "local.tmp\n",
		"main.go":           "package main\n// TODO: hello\n",
		"app.log":           "TODO log\n",
		"secret.txt":        "TODO secret\n",
		"local.tmp":         "TODO tmp\n",
		"build/out.go":      "TODO built\n",
		"src/lib.go":        "package src\nfunc F() {} // TODO: F\n",
		"src/secret.txt":    "TODO nested secret is not anchored away\n",
		"src/.gitignore":    "gen/\n!keep.log\n",
		"src/gen/g.go":      "TODO generated\n",
		"src/keep.log":      "TODO kept\n",
		"src/bin.dat":       "TODO\x00binary",
	})
	if err := os.Symlink(t.TempDir(), filepath.Join(ws.Root, "src", "elsewhere")); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	ws := gitTree(t)
	env := &Env{Workspace: ws}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"top level", map[string]any{}, ".gitignore\nmain.go\nsrc/"},
		{"recursive", map[string]any{"recursive": true}, ".gitignore\nmain.go\nsrc/\nsrc/.gitignore\nsrc/bin.dat\nsrc/elsewhere@\nsrc/keep.log\nsrc/lib.go\nsrc/secret.txt"},
		{"subdirectory", map[string]any{"path": "src"}, "src/.gitignore\nsrc/bin.dat\nsrc/elsewhere@\nsrc/keep.log\nsrc/lib.go\nsrc/secret.txt"},
		{"explicitly ignored dir still lists", map[string]any{"path": "build"}, "build/out.go"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, env, "list_files", tc.args)
			if err != nil || out != tc.want {
				t.Fatalf("got %q, %v\nwant %q", out, err, tc.want)
			}
		})
	}
	if _, err := run(t, env, "list_files", map[string]any{"path": "src/elsewhere"}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("listing through a symlink out: %v", err)
	}
	if _, err := run(t, env, "list_files", map[string]any{"path": "main.go"}); err == nil {
		t.Error("listing a file succeeded")
	}
}

func TestListFilesCap(t *testing.T) {
	t.Parallel()
	ws := tree(t, map[string]string{"d/a": "", "d/b": "", "d/c": "", "e": ""})
	out, err := list(context.Background(), ws, ".", true, 3)
	want := "d/\nd/a\nd/b\n[listing stopped at 3 entries; list a subdirectory for the rest]"
	if err != nil || out != want {
		t.Fatalf("got %q, %v\nwant %q", out, err, want)
	}
}

func TestSearchText(t *testing.T) {
	t.Parallel()
	ws := gitTree(t)
	env := &Env{Workspace: ws}
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
		err  string
	}{
		{name: "gitignore aware", args: map[string]any{"pattern": "TODO"}, want: "main.go:2: // TODO: hello\nsrc/keep.log:1: TODO kept\nsrc/lib.go:2: func F() {} // TODO: F\nsrc/secret.txt:1: TODO nested secret is not anchored away"},
		{name: "regex", args: map[string]any{"pattern": `func \w+\(`}, want: "src/lib.go:2: func F() {} // TODO: F"},
		{name: "ignore case", args: map[string]any{"pattern": "todo: f", "ignoreCase": true}, want: "src/lib.go:2: func F() {} // TODO: F"},
		{name: "include glob", args: map[string]any{"pattern": "TODO", "include": "*.go"}, want: "main.go:2: // TODO: hello\nsrc/lib.go:2: func F() {} // TODO: F"},
		{name: "one file", args: map[string]any{"pattern": "package", "path": "src/lib.go"}, want: "src/lib.go:1: package src"},
		{name: "max results", args: map[string]any{"pattern": "TODO", "maxResults": 1}, want: "main.go:2: // TODO: hello\n[results stopped at 1 matches; narrow the pattern or the path]"},
		{name: "no match", args: map[string]any{"pattern": "zzz"}, want: "[no matches]"},
		{name: "bad regex", args: map[string]any{"pattern": "("}, err: "invalid pattern"},
		{name: "bad glob", args: map[string]any{"pattern": "x", "include": "["}, err: "invalid include glob"},
		{name: "outside", args: map[string]any{"pattern": "x", "path": "/"}, err: "outside the workspace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := run(t, env, "search_text", tc.args)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || out != tc.want {
				t.Fatalf("got %q, %v\nwant %q", out, err, tc.want)
			}
		})
	}
}
