package tools

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
)

// ignoreFile is one parsed .gitignore (or .git/info/exclude): its rules,
// which apply to paths below base.
type ignoreFile struct {
	// base is the directory holding the file, relative to the workspace
	// root in slash form ("" for the root).
	base  string
	rules []ignoreRule
}

// ignoreRule is one pattern line, compiled to a regular expression over
// the slash path relative to the file's directory.
type ignoreRule struct {
	re      *regexp.Regexp
	negate  bool
	dirOnly bool
}

// parseIgnore parses gitignore text the way git does: blank lines and
// #-comments skipped, trailing unescaped spaces trimmed, ! negates, a
// trailing / matches directories only, a pattern with a slash before its
// end is anchored to the file's directory, * ? and [...] stay within one
// path segment, and ** spans segments when it stands between slashes.
// Lines that cannot be compiled are skipped, as git skips them.
func parseIgnore(base string, data []byte) *ignoreFile {
	f := &ignoreFile{base: base}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := compileRule(sc.Text()); ok {
			f.rules = append(f.rules, r)
		}
	}
	return f
}

func compileRule(line string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	line = trimTrailingSpaces(line)
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	var r ignoreRule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") && !strings.HasSuffix(line, `\/`) {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	body, ok := globRegexp(line)
	if !ok {
		return ignoreRule{}, false
	}
	prefix := "^"
	if !anchored {
		prefix = "^(?:.*/)?"
	}
	re, err := regexp.Compile(prefix + body + "$")
	if err != nil {
		return ignoreRule{}, false
	}
	r.re = re
	return r, true
}

// trimTrailingSpaces drops trailing spaces unless the last is escaped.
func trimTrailingSpaces(s string) string {
	for strings.HasSuffix(s, " ") && !strings.HasSuffix(s, `\ `) {
		s = s[:len(s)-1]
	}
	return s
}

// globRegexp translates one gitignore glob to a regexp body.
func globRegexp(g string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(g); {
		switch {
		case strings.HasPrefix(g[i:], "**/") && (i == 0 || g[i-1] == '/'):
			b.WriteString("(?:.*/)?")
			i += 3
		case strings.HasPrefix(g[i:], "**") && i+2 == len(g) && (i == 0 || g[i-1] == '/'):
			b.WriteString(".*")
			i += 2
		case g[i] == '*':
			// Other runs of asterisks are ordinary stars.
			for i < len(g) && g[i] == '*' {
				i++
			}
			b.WriteString("[^/]*")
		case g[i] == '?':
			b.WriteString("[^/]")
			i++
		case g[i] == '[':
			class, n, ok := globClass(g[i:])
			if !ok {
				return "", false
			}
			b.WriteString(class)
			i += n
		case g[i] == '\\' && i+1 < len(g):
			b.WriteString(regexp.QuoteMeta(g[i+1 : i+2]))
			i += 2
		default:
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
			i++
		}
	}
	return b.String(), true
}

// globClass translates a bracket expression at the start of g and returns
// it with the number of bytes it spans.
func globClass(g string) (string, int, bool) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(g) && (g[i] == '!' || g[i] == '^') {
		b.WriteString("^/")
		i++
	}
	start := i
	for ; i < len(g); i++ {
		c := g[i]
		switch {
		case c == ']' && i > start:
			b.WriteString("]")
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		case c == '[' || c == '\\' || c == '^' || (c == ']' && i == start):
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, false
}

// match judges rel (relative to the file's directory): decided reports
// whether any rule matched, ignored the last matching rule's verdict.
func (f *ignoreFile) match(rel string, isDir bool) (ignored, decided bool) {
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if r.re.MatchString(rel) {
			return !r.negate, true
		}
	}
	return false, false
}

// ignoreStack is the .gitignore files in force at one directory of a walk,
// outermost first.
type ignoreStack []*ignoreFile

// ignored reports whether rel (relative to the workspace root) is
// ignored: the deepest file with a matching rule decides, as in git.
func (s ignoreStack) ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		f := s[i]
		sub := rel
		if f.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, f.base+"/"); !ok {
				continue
			}
		}
		if ig, ok := f.match(sub, isDir); ok {
			return ig
		}
	}
	return false
}
