package tools

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

var literalSegment = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// FuzzGitignore feeds arbitrary .gitignore text and paths to the parser a
// workspace walk trusts to hide files. Beyond never panicking: a rule and
// its negation decide the same paths oppositely, a directory-only rule
// never decides a file, a file judges the same paths below its own
// directory as at the root, and a literal name ignores itself at any depth.
func FuzzGitignore(f *testing.F) {
	for _, seed := range []struct {
		rules, path string
		dir         bool
	}{
		{"*.log\n!keep.log\n", "a/keep.log", false},
		{"/build/\nnode_modules\n", "build", true},
		{"doc/**/*.txt\n", "doc/a/b/c.txt", false},
		{"**/cache\nvendor/**\n", "x/cache", true},
		{"[!ab].c\n[a-z]?.go\n", "z.c", false},
		{`\#x.c` + "\n" + `\!y` + "\nz\\ \n", "#x.c", false},
		{"x.c   \r\n# comment\n\n", "x.c", false},
		{"[abc\n[]]\n[\\]]x\n", "]x", false},
		{"a/**/\n***\n**a**\n", "a/b", true},
		{"node_modules", "node_modules", true},
	} {
		f.Add([]byte(seed.rules), seed.path, seed.dir)
	}
	f.Fuzz(func(t *testing.T, data []byte, path string, isDir bool) {
		file := parseIgnore("", data)
		ignored, decided := file.match(path, isDir)
		if ignored && !decided {
			t.Fatalf("ignored without a deciding rule")
		}
		if got := (ignoreStack{file}).ignored(path, isDir); got != ignored {
			t.Fatalf("stack says %v, file says %v", got, ignored)
		}
		if got := (ignoreStack{parseIgnore("sub", data)}).ignored("sub/"+path, isDir); got != ignored {
			t.Fatalf("below its directory %v, at the root %v", got, ignored)
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if line == "" || strings.ContainsAny(line[:1], `!#\`) || strings.HasSuffix(line, `\`) {
				continue
			}
			ig, dec := parseIgnore("", []byte(line)).match(path, isDir)
			nig, ndec := parseIgnore("", []byte("!"+line)).match(path, isDir)
			if dec != ndec || (dec && ig == nig) {
				t.Fatalf("rule %q: (%v, %v); negated: (%v, %v)", line, ig, dec, nig, ndec)
			}
			if _, dec := parseIgnore("", []byte(line+"/")).match(path, false); dec {
				t.Fatalf("directory rule %q/ decided the file %q", line, path)
			}
		}
		if literalSegment.MatchString(path) && !bytes.ContainsAny([]byte(path), "[]") {
			lit := parseIgnore("", []byte(path))
			for _, p := range []string{path, "d/" + path, "d/e/" + path} {
				if ig, _ := lit.match(p, isDir); !ig {
					t.Fatalf("rule %q does not ignore %q", path, p)
				}
			}
			if ig, _ := lit.match(path+"x", isDir); ig {
				t.Fatalf("rule %q ignores %q", path, path+"x")
			}
		}
	})
}
