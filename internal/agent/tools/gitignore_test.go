package tools

import "testing"

func TestIgnoreRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		rules   string
		path    string
		isDir   bool
		ignored bool
	}{
		{"plain name at any depth", "*.log", "a/b/x.log", false, true},
		{"plain name no match", "*.log", "a/b/x.txt", false, false},
		{"star stays in a segment", "a*b", "ax/yb", false, false},
		{"anchored by leading slash", "/build", "build", true, true},
		{"anchored not deeper", "/build", "src/build", true, false},
		{"middle slash anchors", "doc/*.txt", "doc/a.txt", false, true},
		{"middle slash anchors, not nested", "doc/*.txt", "x/doc/a.txt", false, false},
		{"dir only matches dir", "out/", "out", true, true},
		{"dir only skips file", "out/", "out", false, false},
		{"negation re-includes", "*.log\n!keep.log", "keep.log", false, false},
		{"last rule wins", "!keep.log\n*.log", "keep.log", false, true},
		{"leading doublestar", "**/cache", "a/b/cache", true, true},
		{"leading doublestar at root", "**/cache", "cache", true, true},
		{"middle doublestar", "a/**/z", "a/b/c/z", false, true},
		{"middle doublestar zero dirs", "a/**/z", "a/z", false, true},
		{"trailing doublestar", "vendor/**", "vendor/x/y.go", false, true},
		{"trailing doublestar not dir itself", "vendor/**", "vendor", true, false},
		{"question mark", "?.c", "a.c", false, true},
		{"question mark not slash", "a?b", "a/b", false, false},
		{"class", "[ab].c", "b.c", false, true},
		{"negated class", "[!ab].c", "b.c", false, false},
		{"negated class match", "[!ab].c", "z.c", false, true},
		{"comment", "# x.c", "# x.c", false, false},
		{"escaped hash", `\#x.c`, "#x.c", false, true},
		{"escaped bang", `\!x.c`, "!x.c", false, true},
		{"trailing spaces trimmed", "x.c   ", "x.c", false, true},
		{"crlf", "x.c\r", "x.c", false, true},
		{"blank lines", "\n\n", "x", false, false},
		{"unclosed class skipped", "[abc", "[abc", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := parseIgnore("", []byte(tc.rules))
			got, _ := f.match(tc.path, tc.isDir)
			if got != tc.ignored {
				t.Errorf("rules %q path %q dir=%v: ignored=%v, want %v", tc.rules, tc.path, tc.isDir, got, tc.ignored)
			}
		})
	}
}

func TestIgnoreStackDeeperFileWins(t *testing.T) {
	t.Parallel()
	stack := ignoreStack{
		parseIgnore("", []byte("*.gen\n")),
		parseIgnore("sub", []byte("!keep.gen\n/local\n")),
	}
	for _, tc := range []struct {
		path    string
		ignored bool
	}{
		{"a.gen", true},
		{"sub/a.gen", true},
		{"sub/keep.gen", false},
		{"keep.gen", true},
		{"sub/local", true},
		{"local", false},
		{"subx/local", false},
	} {
		if got := stack.ignored(tc.path, false); got != tc.ignored {
			t.Errorf("%s: ignored=%v, want %v", tc.path, got, tc.ignored)
		}
	}
}
